// Records a real `eraseUser` workflow history into test/histories/ for the replay test:
//   npx tsx scripts/histories/erasure.ts
// Needs the local PostgreSQL (+pgvector) and the temporal CLI, like the tests.
//   eraseUser-batches: a user with a few extracted memories erased in batches of
//     two rows, continuing as new every four batches (the last run is kept).
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalCli } from '../../core/embedded/temporalCli.js';
import { ERASE_USER_WORKFLOW_TYPE, eraseWorkflowId, type EraseUserInput } from '../../core/governance/contracts.js';
import { remember, startTestStack } from '../../test/support/stack.js';
import { saveHistory } from './save.js';

const NS = 'history';

const env = await TestWorkflowEnvironment.createLocal({
  server: { executable: { type: 'existing-path', path: findTemporalCli() }, ip: '127.0.0.1', ui: false },
});
const address = env.connection.options.address;
process.env.MNEMO_TEST_TEMPORAL_ADDRESS = address;
const stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' } });
try {
  await stack.deps.pool.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [NS]);
  await remember(stack, { namespace: NS, user_id: 'rosa', content: 'Rosa works at Quillfield. Rosa lives in Ghent.' });
  await remember(stack, { namespace: NS, user_id: 'rosa', content: 'Rosa likes cycling.' });
  const workflowId = eraseWorkflowId(NS, 'rosa');
  const input: EraseUserInput = { namespace: NS, userId: 'rosa', requestedBy: 'script', batchSize: 2, batchesPerRun: 4 };
  const handle = await stack.deps.temporal.client.workflow.start(ERASE_USER_WORKFLOW_TYPE, { workflowId, taskQueue: stack.deps.temporal.taskQueue, args: [input] });
  const firstRunId = handle.firstExecutionRunId;
  console.log(JSON.stringify(await handle.result()));
  // The first run (begin, batches, continue-as-new) and the last (batches, finish).
  saveHistory(address, workflowId, 'eraseUser-continue-as-new', firstRunId);
  saveHistory(address, workflowId, 'eraseUser-batches');
} finally {
  await stack.stop();
  await env.teardown();
}
