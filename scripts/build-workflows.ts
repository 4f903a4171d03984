// `npm run build:workflows [file]`: bundles the workflow code once, ahead of
// time, for WORKFLOW_BUNDLE_PATH (default file: dist/workflow-bundle.js). A
// worker given the file starts without bundling; rebuild it with every deploy.
import path from 'node:path';
import { writeWorkflowBundle } from '../workers/runtime.js';

const file = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
await writeWorkflowBundle(file);
console.log(`workflow bundle written to ${file}: set WORKFLOW_BUNDLE_PATH=${file} for the worker`);
