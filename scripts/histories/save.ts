// Saves one workflow's history from a running Temporal server into
// test/histories/<name>.json, in the CLI's JSON format that test/replay.test.ts
// replays against today's workflow code. Each workflow type's recording script
// (scripts/histories/*.ts, scripts/record-history.ts) calls it.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { findTemporalCli } from '../../core/embedded/temporalCli.js';
import { ROOT } from '../../test/support/env.js';

export function saveHistory(address: string, workflowId: string, name: string, runId?: string): string {
  const args = ['workflow', 'show', '--workflow-id', workflowId, '--address', address, '--output', 'json'];
  if (runId) args.push('--run-id', runId);
  const json = execFileSync(findTemporalCli(), args);
  const file = path.join(ROOT, 'test/histories', `${name}.json`);
  writeFileSync(file, json);
  console.log(`recorded ${file}`);
  return file;
}
