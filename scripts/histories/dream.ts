// Records real `dream` workflow histories into test/histories/ for the replay test:
//   npx tsx scripts/histories/dream.ts
// Needs the local PostgreSQL (+pgvector) and the temporal CLI, like the tests.
//   dream-namespace: an on-demand run over one namespace (decay with a stale fact,
//     a merge proposal, a re-embedded fact) in small batches, so it continues as new.
import { randomUUID } from 'node:crypto';
import { toVectorSql } from '../../core/db/pool.js';
import { nameKey } from '../../core/domain/canonical.js';
import { DREAM_WORKFLOW_TYPE, dreamWorkflowId, type DreamInput } from '../../core/dream/contracts.js';
import { startTestStack } from '../../test/support/stack.js';
import { saveHistory, startRecordingServer } from './save.js';

const NS = 'history';

const env = await startRecordingServer();
const address = env.address;
const stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' } });
try {
  const { pool, nameEmbedder, embedder } = stack.deps;
  await pool.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [NS]);
  const entity = async (name: string, type: string) => {
    const id = randomUUID();
    const [v] = await nameEmbedder.embed([name]);
    await pool.query(
      `INSERT INTO entity (id, namespace, type, name, name_key, name_embedding, embedding_model, first_seen_at, last_seen_at)
       VALUES ($1, $2, $3, $4, $5, $6::vector, $7, now(), now())`,
      [id, NS, type, name, nameKey(name), toVectorSql(v), nameEmbedder.model],
    );
    return id;
  };
  const acme = await entity('Acme Corp', 'organization');
  await entity('Acme', 'organization');
  const facts: Array<[string, string, number, string, string]> = [
    ['Acme Corp builds rockets.', 'permanent', 0.9, '2026-01-01T00:00:00Z', embedder.model],
    ['Acme Corp likes red.', 'fast_decay', 0.6, '2025-01-01T00:00:00Z', embedder.model],
    ['Acme Corp sells gadgets.', 'slow_decay', 0.7, '2025-12-01T00:00:00Z', 'retired-model'],
  ];
  for (const [text, decayClass, confidence, confirmed, model] of facts) {
    const [v] = await embedder.embed([text]);
    await pool.query(
      `INSERT INTO fact (id, namespace, subject_id, predicate, predicate_raw, family, value, fact_text, memory_kind, confidence, decay_class,
                         last_confirmed_at, source, sensitivity, embedding, embedding_model)
       VALUES ($1, $2, $3, 'likes', 'likes', 'preferences', $4, $4, 'semantic', $5, $6, $7, 'history', 'internal', $8::vector, $9)`,
      [randomUUID(), NS, acme, text, confidence, decayClass, confirmed, toVectorSql(v), model],
    );
  }
  const runId = randomUUID();
  const workflowId = dreamWorkflowId(runId);
  const input: DreamInput = { runId, namespace: NS, now: '2026-06-01T03:00:00Z', batchSizes: { decay: 2, duplicates: 1, reembed: 2 }, batchesPerRun: 4 };
  const handle = await stack.deps.temporal.client.workflow.start(DREAM_WORKFLOW_TYPE, { workflowId, taskQueue: stack.deps.temporal.taskQueue, args: [input] });
  const firstRunId = handle.firstExecutionRunId;
  console.log(JSON.stringify(await handle.result()));
  // The first run (begin, batches, continue-as-new) and the last (batches, report).
  saveHistory(address, workflowId, 'dream-continue-as-new', firstRunId);
  saveHistory(address, workflowId, 'dream-namespace');
} finally {
  await stack.stop();
  await env.teardown();
}
