// Saves one workflow's history from a running Temporal server into
// test/histories/<name>.json, in the CLI's JSON format that test/replay.test.ts
// replays against today's workflow code. Each workflow type's recording script
// (scripts/histories/*.ts, scripts/record-history.ts) calls it.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { findTemporalCli } from '../../core/embedded/temporalCli.js';
import { ROOT } from '../../test/support/paths.js';
import { eventually } from '../../test/support/eventually.js';

export function saveHistory(address: string, workflowId: string, name: string, runId?: string): string {
  const args = ['workflow', 'show', '--workflow-id', workflowId, '--address', address, '--output', 'json'];
  if (runId) args.push('--run-id', runId);
  const json = execFileSync(findTemporalCli(), args);
  const file = path.join(ROOT, 'test/histories', `${name}.json`);
  writeFileSync(file, json);
  console.log(`recorded ${file}`);
  return file;
}

/** A local Temporal dev server for recording (the tests' own server is not reachable from a script). */
export async function startRecordingServer(): Promise<{ address: string; teardown(): Promise<void> }> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: findTemporalCli() }, ip: '127.0.0.1', ui: false },
  });
  const address = env.connection.options.address;
  // startTestStack() reads the test server's address from here.
  process.env.MNEMO_TEST_TEMPORAL_ADDRESS = address;
  return { address, teardown: () => env.teardown() };
}

/** Polls `probe` until `done` holds (60 s at most): recordings wait for workflows to reach a state. */
export function until<T>(probe: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  return eventually(probe, done, what, 60_000, 200);
}
