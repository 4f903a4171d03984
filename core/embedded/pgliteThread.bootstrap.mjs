// Loads pgliteThread.ts through tsx in the thread (a worker thread does not inherit
// the parent's `--import tsx` loader); compiled builds start pgliteThread.js directly.
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.entry, import.meta.url);
