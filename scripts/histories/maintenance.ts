// Records real histories of the schedules' workflows into test/histories/ for the replay test:
//   npx tsx scripts/histories/maintenance.ts
// Needs the local PostgreSQL (+pgvector) and the temporal CLI, like the tests.
//   reconcile-pending: one episode left `pending` (as when Temporal was down at write time) is started.
//   refreshSearchStats: the keyword signal's term statistics refreshed after a few memories.
import { WORKFLOW_NAMES } from '../../core/ingest/contracts.js';
import { remember, startTestStack } from '../../test/support/stack.js';
import { saveHistory, startRecordingServer } from './save.js';

const NS = 'history';

const env = await startRecordingServer();
const stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' } });
try {
  const { client } = stack.deps.temporal;
  const taskQueue = stack.deps.temporal.taskQueue;
  await remember(stack, { namespace: NS, content: 'Mira Holt works at Fennic Labs in Tromsø.' });
  // An acknowledged write whose extraction never started: the row alone, as the API leaves it when Temporal is down.
  await stack.deps.pool.query(
    `INSERT INTO episode (id, namespace, content, occurred_at, workflow_id)
     VALUES ('00000000-0000-4000-8000-00000000aaaa', $1, 'Mira Holt moved to Bergen.', now(), 'episode:00000000-0000-4000-8000-00000000aaaa')`,
    [NS],
  );
  await client.workflow.execute(WORKFLOW_NAMES.reconcile, { workflowId: 'reconcile-pending', taskQueue, args: [] });
  saveHistory(env.address, 'reconcile-pending', 'reconcile-pending');
  await client.workflow.execute(WORKFLOW_NAMES.refreshSearchStats, { workflowId: 'refreshSearchStats', taskQueue, args: [] });
  saveHistory(env.address, 'refreshSearchStats', 'refreshSearchStats');
} finally {
  await stack.stop();
  await env.teardown();
}
