import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { ROOT } from './support/paths.js';
import { workflowBundle } from '../workers/runtime.js';

const HISTORIES = path.join(ROOT, 'test/histories');

/**
 * Replays recorded production histories against today's workflow code: a
 * change that breaks determinism (reordered or renamed activities without
 * `patched()`) fails here instead of in production. Histories are recorded
 * with `npx tsx scripts/record-history.ts`. (protobufjs is a direct dependency
 * so npm keeps one copy of it for all @temporalio packages; with several
 * copies, history JSON cannot be decoded.)
 */
describe('workflow replay', () => {
  const files = readdirSync(HISTORIES).filter((f) => f.endsWith('.json'));

  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it('replays every recorded history without a determinism error', async () => {
    const histories = files.map((file) => ({
      workflowId: path.basename(file, '.json'),
      history: JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')),
    }));
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      results.push(result);
    }
    expect(results).toHaveLength(histories.length);
    for (const r of results) expect(r.error).toBeUndefined();
  });
});
