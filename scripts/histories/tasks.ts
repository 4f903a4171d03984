// Records real `persistentTask` histories into test/histories/ for the replay test:
//   npx tsx scripts/histories/tasks.ts
// Needs the local PostgreSQL (+pgvector) and the Temporal test server, like the tests.
// Runs on Temporal's time-skipping server, so hourly bursts take no wall time.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PERSISTENT_TASK_WORKFLOW_TYPE, persistentTaskWorkflowId, type PersistentTaskInput, type TaskView } from '../../core/tasks/contracts.js';
import { startTestStack, type TestStack } from '../../test/support/stack.js';
import { startTimeSkippingEnvironment, timeSkippingAddress } from '../../test/support/timeSkipping.js';
import { saveHistory } from './save.js';

let webhookStatus = 200;
const webhook = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const { burst } = JSON.parse(body) as { burst: number };
    res.writeHead(webhookStatus, { 'content-type': 'application/json' }).end(JSON.stringify({ progress: { note: `burst ${burst}`, percent: burst * 10 } }));
  });
});
await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/burst`;

const env = await startTimeSkippingEnvironment();
const address = timeSkippingAddress(env);
const stack = await startTestStack({ temporalAddress: address });

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function handleOf(s: TestStack, id: string) {
  return s.deps.temporal.client.workflow.getHandle(persistentTaskWorkflowId(id));
}

async function view(id: string): Promise<TaskView> {
  return handleOf(stack, id).query<TaskView>('state');
}

/** Moves Temporal's clock past the task's pending burst timer and waits for the burst. */
async function burst(id: string, index: number): Promise<void> {
  await until('a pending burst timer', async () => {
    const { events } = await handleOf(stack, id).fetchHistory();
    const started = events!.filter((e) => e.timerStartedEventAttributes).length;
    return started > events!.filter((e) => e.timerFiredEventAttributes || e.timerCanceledEventAttributes).length;
  });
  await env.sleep('1h');
  await until(`burst ${index}`, async () => (await view(id)).bursts.some((b) => b.burst === index));
}

async function createTask(body: Record<string, unknown>): Promise<string> {
  const res = await stack.request<{ id: string }>('POST', '/v1/tasks', { namespace: 'history', ...body });
  if (res.status !== 201) throw new Error(`POST /v1/tasks → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

try {
  // Bursts with a webhook, pause and resume, a budget change, progress, done.
  {
    const id = await createTask({ intent: 'Summarize the inbox', schedule: { every: '1h' }, webhook_url: webhookUrl });
    await burst(id, 1);
    await stack.request('POST', `/v1/tasks/${id}/pause`);
    await until('paused', async () => (await view(id)).status === 'paused');
    await stack.request('POST', `/v1/tasks/${id}/resume`);
    await burst(id, 2);
    await stack.request('POST', `/v1/tasks/${id}/budget`, { error_budget: 5 });
    await stack.request('POST', `/v1/tasks/${id}/progress`, { note: 'all summarized', done: true });
    await handleOf(stack, id).result();
    saveHistory(address, persistentTaskWorkflowId(id), 'persistentTask-bursts-completed');
  }
  // A failing webhook spends the budget: paused, review opened; then cancelled.
  {
    webhookStatus = 500;
    const id = await createTask({ intent: 'Flaky job', schedule: { every: '1h' }, webhook_url: webhookUrl, error_budget: 1 });
    await burst(id, 1);
    await until('paused by its budget', async () => (await view(id)).status === 'paused');
    await until('the review item', async () => {
      const { rows } = await stack.deps.pool.query('SELECT 1 FROM review_item WHERE dedup_key = $1', [`task_budget:${id}:1`]);
      return rows.length === 1;
    });
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
    await handleOf(stack, id).result();
    saveHistory(address, persistentTaskWorkflowId(id), 'persistentTask-budget-spent');
    webhookStatus = 200;
  }
  // A run that continues as new after one burst (the first run's history).
  {
    const id = '00000000-0000-4000-8000-00000000c0de';
    await stack.deps.pool.query(
      `INSERT INTO namespace (id) VALUES ('history') ON CONFLICT DO NOTHING;`,
    );
    await stack.deps.pool.query(
      `INSERT INTO persistent_task (id, namespace, intent, schedule, status, error_budget, error_budget_remaining, workflow_id)
       VALUES ($1, 'history', 'Long runner', '{"every": "1h"}', 'active', 3, 3, $2)`,
      [id, persistentTaskWorkflowId(id)],
    );
    const input: PersistentTaskInput = { taskId: id, namespace: 'history', intent: 'Long runner', schedule: { every: '1h' }, webhookUrl: null, errorBudget: 3, burstsPerRun: 1 };
    const handle = await stack.deps.temporal.client.workflow.start(PERSISTENT_TASK_WORKFLOW_TYPE, {
      workflowId: persistentTaskWorkflowId(id),
      taskQueue: stack.deps.temporal.taskQueue,
      args: [input],
    });
    await burst(id, 1);
    await until('continued as new', async () => (await handle.describe()).runId !== handle.firstExecutionRunId);
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
    await handleOf(stack, id).result();
    saveHistory(address, persistentTaskWorkflowId(id), 'persistentTask-continued', handle.firstExecutionRunId);
  }
} finally {
  await stack.stop();
  await env.teardown();
  await new Promise((resolve) => webhook.close(resolve));
}
