import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApiKey } from '../core/auth/apiKeys.js';
import { PERSISTENT_TASK_WORKFLOW_TYPE, persistentTaskWorkflowId, type PersistentTaskInput, type TaskView } from '../core/tasks/contracts.js';
import { startTestStack, type TestStack } from './support/stack.js';
import { startTimeSkippingEnvironment, timeSkippingAddress } from './support/timeSkipping.js';

interface ErrorBody {
  error: { code: string; message: string; details: Array<{ field: string; message: string }> | null };
}
type TaskBody = TaskView & { workflow_id: string; webhook_url: string | null };

/** A webhook on 127.0.0.1 that records what each burst posted and answers what the test says. */
interface Hook {
  url: string;
  calls: Array<Record<string, unknown>>;
  answer: (body: Record<string, unknown>) => { status: number; body?: unknown };
}

async function startHook(): Promise<Hook & { server: Server }> {
  const hook = { url: '', calls: [] as Array<Record<string, unknown>>, answer: (() => ({ status: 200 })) as Hook['answer'], server: createServer() };
  hook.server.on('request', async (req: IncomingMessage, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text) as Record<string, unknown>;
    hook.calls.push(body);
    const answer = hook.answer(body);
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => hook.server.listen(0, '127.0.0.1', resolve));
  hook.url = `http://127.0.0.1:${(hook.server.address() as AddressInfo).port}/burst`;
  return hook;
}

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('persistent tasks', () => {
  let env: TestWorkflowEnvironment;
  let stack: TestStack;
  let hook: Hook & { server: Server };

  beforeAll(async () => {
    env = await startTimeSkippingEnvironment();
    stack = await startTestStack({ temporalAddress: timeSkippingAddress(env) });
    hook = await startHook();
  });
  afterAll(async () => {
    await stack?.stop();
    await env?.teardown();
    await new Promise((resolve) => hook?.server.close(resolve));
  });

  async function createTask(body: Record<string, unknown>): Promise<string> {
    const res = await stack.request<{ id: string; workflow_id: string; status: string }>('POST', '/v1/tasks', body);
    if (res.status !== 201) throw new Error(`POST /v1/tasks → ${res.status} ${JSON.stringify(res.body)}`);
    expect(res.body).toEqual({ id: expect.any(String), workflow_id: `task:${res.body.id}`, status: 'active' });
    return res.body.id;
  }

  const getTask = (id: string, key?: string) => stack.request<TaskBody>('GET', `/v1/tasks/${id}`, undefined, key);

  async function taskMatching(id: string, what: string, predicate: (t: TaskBody) => boolean): Promise<TaskBody> {
    return waitFor(what, async () => {
      const res = await getTask(id);
      return res.status === 200 && predicate(res.body) ? res.body : null;
    });
  }

  /** Waits until the task's workflow waits on a timer (its next burst): nothing else is in flight. */
  async function waitForBurstTimer(id: string): Promise<void> {
    const handle = stack.deps.temporal.client.workflow.getHandle(persistentTaskWorkflowId(id));
    await waitFor('the next burst timer', async () => {
      const { events } = await handle.fetchHistory();
      const started = events!.filter((e) => e.timerStartedEventAttributes).length;
      const ended = events!.filter((e) => e.timerFiredEventAttributes || e.timerCanceledEventAttributes).length;
      return started > ended;
    });
  }

  /** Moves Temporal's clock past the task's next burst. */
  async function skipToNextBurst(id: string, by = '1h'): Promise<void> {
    await waitForBurstTimer(id);
    await env.sleep(by);
  }

  async function dbTask(id: string) {
    const { rows } = await stack.deps.pool.query('SELECT status, error_budget, error_budget_remaining, current_burst, progress, finished_at FROM persistent_task WHERE id = $1', [id]);
    return rows[0];
  }

  it('rejects invalid tasks with 400 naming each field, and creates nothing', async () => {
    const cases: Array<{ body: unknown; fields: string[] }> = [
      { body: {}, fields: ['intent', 'schedule'] },
      { body: { intent: '  ', schedule: { every: '1h' } }, fields: ['intent'] },
      { body: { intent: 'x', schedule: { every: '10 minutes' } }, fields: ['schedule.every'] },
      { body: { intent: 'x', schedule: { every: '0s' } }, fields: ['schedule.every'] },
      { body: { intent: 'x', schedule: { cron: 'not a cron' } }, fields: ['schedule.cron'] },
      { body: { intent: 'x', schedule: { cron: '0 0 9 * * *' } }, fields: ['schedule.cron'] },
      { body: { intent: 'x', schedule: { every: '1h', cron: '* * * * *' } }, fields: ['schedule'] },
      { body: { intent: 'x', schedule: {} }, fields: ['schedule'] },
      { body: { intent: 'x', schedule: { every: '1h' }, error_budget: 0, webhook_url: 'ftp://example.com/x' }, fields: ['error_budget', 'webhook_url'] },
      { body: { intent: 'x', schedule: { every: '1h' }, colour: 'red' }, fields: ['(body)'] },
    ];
    for (const c of cases) {
      const res = await stack.request<ErrorBody>('POST', '/v1/tasks', c.body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
      const fields = res.body.error.details!.map((d) => d.field);
      for (const f of c.fields) expect(fields).toContain(f);
    }
    const { rows } = await stack.deps.pool.query('SELECT count(*)::int AS n FROM persistent_task');
    expect(rows[0].n).toBe(0);
  });

  it('runs a burst at each scheduled time, posts the task to its webhook and records the answer', async () => {
    hook.answer = (body) => ({ status: 200, body: { progress: { note: `burst ${body.burst} done`, percent: Number(body.burst) * 10 } } });
    const id = await createTask({ intent: 'Summarize the inbox every hour', schedule: { every: '1h' }, webhook_url: hook.url, namespace: 'tasks', agent_id: 'mailbot' });
    const turn = await stack.request('POST', `/v1/sessions/${id}/turns`, { role: 'user', content: 'Focus on invoices.', namespace: 'tasks' });
    expect(turn.status).toBeLessThan(300);

    const created = await taskMatching(id, 'a planned burst', (t) => t.next_burst_at !== null);
    expect(created).toMatchObject({ id, namespace: 'tasks', status: 'active', error_budget: 3, error_budget_remaining: 3, current_burst: 0, bursts: [] });
    expect(hook.calls.filter((c) => c.task_id === id)).toHaveLength(0);

    await skipToNextBurst(id);
    const first = await taskMatching(id, 'burst 1', (t) => t.bursts.length === 1);
    const calls = hook.calls.filter((c) => c.task_id === id);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ task_id: id, burst: 1, intent: 'Summarize the inbox every hour', progress: { note: null, percent: null } });
    expect(calls[0].working_memory).toMatchObject({ task_id: id });
    expect(JSON.stringify(calls[0].working_memory)).toContain('Focus on invoices.');
    expect(first.bursts[0]).toMatchObject({ burst: 1, outcome: 'ok', http_status: 200, error: null });
    expect(first.progress).toMatchObject({ note: 'burst 1 done', percent: 10 });

    await skipToNextBurst(id);
    const second = await taskMatching(id, 'burst 2', (t) => t.bursts.length === 2);
    expect(hook.calls.filter((c) => c.task_id === id).at(-1)).toMatchObject({ burst: 2, progress: { note: 'burst 1 done', percent: 10 } });
    expect(second.bursts.map((b) => b.burst)).toEqual([2, 1]);
    expect(Date.parse(second.bursts[0].scheduled_at) - Date.parse(second.bursts[1].scheduled_at)).toBe(3_600_000);

    // The durable copy follows.
    const { rows: bursts } = await stack.deps.pool.query('SELECT burst_index, outcome, http_status, response FROM task_burst WHERE task_id = $1 ORDER BY burst_index', [id]);
    expect(bursts).toEqual([
      { burst_index: 1, outcome: 'ok', http_status: 200, response: { progress: { note: 'burst 1 done', percent: 10 } } },
      { burst_index: 2, outcome: 'ok', http_status: 200, response: { progress: { note: 'burst 2 done', percent: 20 } } },
    ]);
    await waitFor('the saved progress', async () => (await dbTask(id)).progress.note === 'burst 2 done');
    expect(await dbTask(id)).toMatchObject({ status: 'active', current_burst: 2 });
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
  });

  it('a cron schedule plans its bursts in UTC', async () => {
    const id = await createTask({ intent: 'Weekday digest', schedule: { cron: '30 9 * * 1-5' } });
    const task = await taskMatching(id, 'a planned burst', (t) => t.next_burst_at !== null);
    const next = new Date(task.next_burst_at!);
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([9, 30]);
    expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
  });

  it('failed bursts spend the budget; the task pauses itself and opens a task_budget review', async () => {
    hook.answer = () => ({ status: 500, body: { error: 'down' } });
    const id = await createTask({ intent: 'Flaky job', schedule: { every: '1h' }, error_budget: 2, webhook_url: hook.url, namespace: 'tasks' });
    await skipToNextBurst(id);
    const one = await taskMatching(id, 'one failed burst', (t) => t.bursts.length === 1);
    expect(one).toMatchObject({ status: 'active', error_budget_remaining: 1 });
    expect(one.bursts[0]).toMatchObject({ outcome: 'failed', http_status: 500, error: 'webhook answered HTTP 500' });

    await skipToNextBurst(id);
    const spent = await taskMatching(id, 'the budget spent', (t) => t.status === 'paused');
    expect(spent).toMatchObject({ error_budget_remaining: 0, next_burst_at: null, current_burst: 2 });
    const review = await waitFor('the review item', async () => {
      const { rows } = await stack.deps.pool.query('SELECT namespace, kind, status, payload, dedup_key, workflow_id FROM review_item WHERE kind = $1 AND payload->>$2 = $3', ['task_budget', 'task_id', id]);
      return rows[0]?.workflow_id ? rows[0] : null;
    });
    expect(review).toMatchObject({ namespace: 'tasks', status: 'open', dedup_key: `task_budget:${id}:2`, workflow_id: expect.stringMatching(/^review:/) });
    expect(review.payload).toEqual({ task_id: id, reason: expect.stringContaining('burst 2 failed: webhook answered HTTP 500') });
    await waitFor('the paused row', async () => (await dbTask(id)).status === 'paused');

    // Resuming (what approving the review does) restores the budget.
    hook.answer = () => ({ status: 200 });
    expect((await stack.request('POST', `/v1/tasks/${id}/resume`)).status).toBe(202);
    const resumed = await taskMatching(id, 'resumed', (t) => t.status === 'active' && t.next_burst_at !== null);
    expect(resumed.error_budget_remaining).toBe(2);
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
  });

  it('a refused connection is a failed burst too', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/gone`;
    await new Promise((resolve) => closed.close(resolve));
    const id = await createTask({ intent: 'Unreachable', schedule: { every: '1h' }, error_budget: 1, webhook_url: url });
    await skipToNextBurst(id);
    const spent = await taskMatching(id, 'paused', (t) => t.status === 'paused');
    expect(spent.bursts[0]).toMatchObject({ outcome: 'failed', http_status: null, error: expect.stringContaining('ECONNREFUSED') });
    await waitFor('the review item', async () => {
      const { rows } = await stack.deps.pool.query('SELECT 1 FROM review_item WHERE dedup_key = $1', [`task_budget:${id}:1`]);
      return rows.length === 1;
    });
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
  });

  it('pauses, resumes and cancels through the API and through raw Temporal signals', async () => {
    const id = await createTask({ intent: 'Signals', schedule: { every: '1h' } });
    const handle = stack.deps.temporal.client.workflow.getHandle(persistentTaskWorkflowId(id));
    await taskMatching(id, 'planned', (t) => t.next_burst_at !== null);

    await handle.signal('pause');
    await taskMatching(id, 'paused by a raw signal', (t) => t.status === 'paused' && t.next_burst_at === null);
    await env.sleep('3h');
    expect((await getTask(id)).body.current_burst).toBe(0);

    expect((await stack.request('POST', `/v1/tasks/${id}/resume`)).status).toBe(202);
    await taskMatching(id, 'resumed', (t) => t.status === 'active' && t.next_burst_at !== null);
    expect((await stack.request('POST', `/v1/tasks/${id}/pause`)).status).toBe(202);
    await taskMatching(id, 'paused by the API', (t) => t.status === 'paused');
    await handle.signal('resume');
    await taskMatching(id, 'resumed by a raw signal', (t) => t.status === 'active');
    await skipToNextBurst(id);
    await taskMatching(id, 'a burst after resuming', (t) => t.current_burst === 1);

    const cancelled = await stack.request<{ signal: string }>('POST', `/v1/tasks/${id}/cancel`);
    expect(cancelled).toEqual({ status: 202, body: { id, workflow_id: `task:${id}`, signal: 'cancel' } });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'cancelled', current_burst: 1 });
    await waitFor('the cancelled row', async () => (await dbTask(id)).finished_at !== null);
    expect((await dbTask(id)).status).toBe('cancelled');
    // A finished task is answered from its final durable copy.
    const closed = await fetch(`${stack.baseUrl}/v1/tasks/${id}`, { headers: { authorization: 'Bearer test-admin-key-0123456789' } });
    expect(closed.headers.get('mnemo-task-source')).toBe('database');
    expect(await closed.json()).toMatchObject({ status: 'cancelled', current_burst: 1, bursts: [{ burst: 1, outcome: 'ok' }], next_burst_at: null });
    const again = await stack.request<ErrorBody>('POST', `/v1/tasks/${id}/resume`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');

    const { rows: audit } = await stack.deps.pool.query<{ action: string; actor: string }>(
      `SELECT action, actor FROM audit_log WHERE target_type = 'persistent_task' AND target_id = $1 ORDER BY id`,
      [id],
    );
    const actions = audit.map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['task.create', 'task.resume', 'task.pause', 'task.cancel', 'task.status', 'task.burst']));
    expect(audit.find((a) => a.action === 'task.status')!.actor).toBe('workflow:persistentTask');
  });

  it('a raw `temporal workflow cancel` ends the task as cancelled', async () => {
    const id = await createTask({ intent: 'Cancelled from the CLI', schedule: { every: '1h' } });
    const handle = stack.deps.temporal.client.workflow.getHandle(persistentTaskWorkflowId(id));
    await taskMatching(id, 'planned', (t) => t.next_burst_at !== null);
    // Cancelled while it waits for its next burst. (Cancelling during an activity hits a race of the
    // time-skipping test server, which then refuses the activity's cancellation as ACTIVITY_UNKNOWN.)
    await waitForBurstTimer(id);
    await handle.cancel();
    expect(await handle.result()).toMatchObject({ status: 'cancelled' });
    expect((await dbTask(id)).status).toBe('cancelled');
  });

  it('progress notes are recorded and done completes the task', async () => {
    const id = await createTask({ intent: 'Write the report', schedule: { every: '1d' } });
    const res = await stack.request('POST', `/v1/tasks/${id}/progress`, { note: 'outline written', percent: 30 });
    expect(res.status).toBe(202);
    const noted = await taskMatching(id, 'the progress note', (t) => t.progress.note === 'outline written');
    expect(noted.progress).toMatchObject({ percent: 30, updated_at: expect.any(String) });
    await stack.deps.temporal.client.workflow.getHandle(persistentTaskWorkflowId(id)).signal('progress', { note: 'draft done', percent: 90 });
    await taskMatching(id, 'a raw progress signal', (t) => t.progress.note === 'draft done');

    const bad = await stack.request<ErrorBody>('POST', `/v1/tasks/${id}/progress`, { note: '', percent: 101, done: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details!.map((d) => d.field).sort()).toEqual(['done', 'note', 'percent']);

    await stack.request('POST', `/v1/tasks/${id}/progress`, { note: 'sent', done: true });
    const result = await stack.deps.temporal.client.workflow.getHandle(persistentTaskWorkflowId(id)).result();
    expect(result).toMatchObject({ status: 'completed', progress: { note: 'sent', percent: 90 } });
    await waitFor('the completed row', async () => (await dbTask(id)).status === 'completed');
  });

  it('the budget is set by an operator and refilled', async () => {
    const id = await createTask({ intent: 'Budgeted', schedule: { every: '1h' }, namespace: 'tasks' });
    const agent = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'tasks' });
    const refused = await stack.request<ErrorBody>('POST', `/v1/tasks/${id}/budget`, { error_budget: 9 }, agent.key);
    expect(refused.status).toBe(403);
    const invalid = await stack.request<ErrorBody>('POST', `/v1/tasks/${id}/budget`, { error_budget: 0 });
    expect(invalid.body.error.details!.map((d) => d.field)).toEqual(['error_budget']);
    expect((await stack.request('POST', `/v1/tasks/${id}/budget`, { error_budget: 7 })).status).toBe(202);
    await taskMatching(id, 'the new budget', (t) => t.error_budget === 7 && t.error_budget_remaining === 7);
    await waitFor('the saved budget', async () => (await dbTask(id)).error_budget === 7);
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
  });

  it('GET answers from the workflow query, else from the Postgres copy', async () => {
    const id = await createTask({ intent: 'Queried', schedule: { every: '1h' } });
    await taskMatching(id, 'planned', (t) => t.next_burst_at !== null);
    const live = await fetch(`${stack.baseUrl}/v1/tasks/${id}`, { headers: { authorization: 'Bearer test-admin-key-0123456789' } });
    expect(live.headers.get('mnemo-task-source')).toBe('workflow');

    // A task whose workflow is gone (e.g. its history was deleted): the durable copy answers.
    const orphan = '00000000-0000-4000-8000-00000000000a';
    await stack.deps.pool.query(
      `INSERT INTO persistent_task (id, namespace, intent, schedule, status, error_budget, error_budget_remaining, workflow_id, current_burst, progress)
       VALUES ($1, 'default', 'Orphan', '{"every": "1h"}', 'paused', 3, 1, $2, 1, '{"note": "stalled"}')`,
      [orphan, persistentTaskWorkflowId(orphan)],
    );
    await stack.deps.pool.query(`INSERT INTO task_burst (task_id, burst_index, namespace, outcome, http_status, error, finished_at) VALUES ($1, 1, 'default', 'failed', 502, 'bad gateway', now())`, [orphan]);
    const res = await fetch(`${stack.baseUrl}/v1/tasks/${orphan}`, { headers: { authorization: 'Bearer test-admin-key-0123456789' } });
    expect(res.headers.get('mnemo-task-source')).toBe('database');
    expect(await res.json()).toMatchObject({
      id: orphan,
      status: 'paused',
      error_budget_remaining: 1,
      progress: { note: 'stalled', percent: null },
      bursts: [{ burst: 1, outcome: 'failed', http_status: 502, error: 'bad gateway' }],
    });
    const signal = await stack.request<ErrorBody>('POST', `/v1/tasks/${orphan}/resume`);
    expect(signal.status).toBe(409);
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
  });

  it('lists tasks by namespace and status', async () => {
    const id = await createTask({ intent: 'Listed', schedule: { every: '1h' }, namespace: 'listing' });
    const res = await stack.request<{ tasks: Array<{ id: string; status: string }> }>('GET', '/v1/tasks?namespace=listing&status=active');
    expect(res.body.tasks.map((t) => t.id)).toEqual([id]);
    const none = await stack.request<{ tasks: unknown[] }>('GET', '/v1/tasks?namespace=listing&status=completed');
    expect(none.body.tasks).toEqual([]);
    expect((await stack.request<ErrorBody>('GET', '/v1/tasks?status=done')).status).toBe(400);
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
  });

  it('another namespace neither sees nor signals the task', async () => {
    const id = await createTask({ intent: 'Private', schedule: { every: '1h' }, namespace: 'tasks' });
    const outsider = await createApiKey(stack.deps.pool, { role: 'operator', namespace: 'elsewhere' });
    expect((await getTask(id, outsider.key)).status).toBe(404);
    expect((await stack.request('POST', `/v1/tasks/${id}/pause`, undefined, outsider.key)).status).toBe(404);
    expect((await stack.request('POST', `/v1/tasks/${id}/budget`, { error_budget: 5 }, outsider.key)).status).toBe(404);
    const listed = await stack.request<ErrorBody>('GET', '/v1/tasks?namespace=tasks', undefined, outsider.key);
    expect(listed.status).toBe(403);
    const create = await stack.request<ErrorBody>('POST', '/v1/tasks', { intent: 'x', schedule: { every: '1h' }, namespace: 'tasks' }, outsider.key);
    expect(create.status).toBe(403);
    expect((await getTask(id)).body.status).toBe('active');
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
  });

  it('continues as new after its bursts per run, carrying the state', async () => {
    const id = '00000000-0000-4000-8000-0000000000c1';
    await stack.deps.pool.query(
      `INSERT INTO persistent_task (id, namespace, intent, schedule, status, error_budget, error_budget_remaining, workflow_id)
       VALUES ($1, 'default', 'Long runner', '{"every": "1h"}', 'active', 3, 3, $2)`,
      [id, persistentTaskWorkflowId(id)],
    );
    const input: PersistentTaskInput = { taskId: id, namespace: 'default', intent: 'Long runner', schedule: { every: '1h' }, webhookUrl: null, errorBudget: 3, burstsPerRun: 2 };
    const handle = await stack.deps.temporal.client.workflow.start(PERSISTENT_TASK_WORKFLOW_TYPE, {
      workflowId: persistentTaskWorkflowId(id),
      taskQueue: stack.deps.temporal.taskQueue,
      args: [input],
    });
    await handle.signal('progress', { note: 'before continuing' });
    // Watched through Postgres, not GET (a workflow query): a query that meets the time-skipping test server while
    // a run continues as new leaves time skipping locked, and the next env.sleep('1h') then waits an hour of real
    // time (reproduced: query polling hung at the first continue-as-new; Postgres polling ran 25 of them).
    for (let burst = 1; burst <= 3; burst++) {
      await skipToNextBurst(id);
      await waitFor(`burst ${burst}`, async () => (await dbTask(id)).current_burst === burst);
    }
    await waitForBurstTimer(id);
    const latest = await handle.describe();
    expect(latest.runId).not.toBe(handle.firstExecutionRunId);
    const task = (await getTask(id)).body;
    expect(task.bursts.map((b) => b.burst)).toEqual([3, 2, 1]);
    expect(task.progress.note).toBe('before continuing');
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
  });
});

describe('the write limit of a task burst', () => {
  let env: TestWorkflowEnvironment;
  let stack: TestStack;

  beforeAll(async () => {
    env = await startTimeSkippingEnvironment();
    stack = await startTestStack({ temporalAddress: timeSkippingAddress(env) });
  });
  afterAll(async () => {
    await stack?.stop();
    await env?.teardown();
  });

  const memory = (taskId: string, i: number, extra: Record<string, unknown> = {}) => ({ content: `Note ${i} of the task.`, task_id: taskId, skip_extraction: true, namespace: 'limits', ...extra });

  async function startBurst(id: string, burst: number): Promise<void> {
    const handle = stack.deps.temporal.client.workflow.getHandle(persistentTaskWorkflowId(id));
    await waitFor('the next burst timer', async () => {
      const { events } = await handle.fetchHistory();
      return events!.filter((e) => e.timerStartedEventAttributes).length >= burst;
    });
    await env.sleep('1h');
    await waitFor(`burst ${burst}`, async () => {
      const { rows } = await stack.deps.pool.query('SELECT current_burst FROM persistent_task WHERE id = $1', [id]);
      return rows[0].current_burst === burst;
    });
  }

  it('accepts 50 writes per burst, answers the 51st with 429 task_write_limit and audits it', async () => {
    const created = await stack.request<{ id: string }>('POST', '/v1/tasks', { intent: 'Write a lot', schedule: { every: '1h' }, namespace: 'limits' });
    const id = created.body.id;
    await startBurst(id, 1);

    const batch = await stack.request<{ memories: unknown[] }>('POST', '/v1/memories/batch', { memories: Array.from({ length: 49 }, (_, i) => memory(id, i)) });
    expect(batch.status).toBe(202);
    expect((await stack.request('POST', '/v1/memories', memory(id, 49))).status).toBe(202);
    const over = await stack.request<ErrorBody>('POST', '/v1/memories', memory(id, 50));
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: 'task_write_limit', details: { task_id: id, burst: 1, writes: 50, limit: 50 } });

    const { rows: episodes } = await stack.deps.pool.query('SELECT count(*)::int AS n FROM episode WHERE task_id = $1', [id]);
    expect(episodes[0].n).toBe(50);
    const { rows: bursts } = await stack.deps.pool.query('SELECT writes FROM task_burst WHERE task_id = $1 AND burst_index = 1', [id]);
    expect(bursts[0].writes).toBe(50);
    const { rows: audit } = await stack.deps.pool.query(`SELECT namespace, actor, after FROM audit_log WHERE action = 'task.write_limit' AND target_id = $1`, [id]);
    expect(audit).toEqual([{ namespace: 'limits', actor: 'key:env:MNEMO_API_KEY', after: { burst: 1, writes: 50, refused: 1, limit: 50 } }]);

    // The next burst starts a fresh allowance.
    await startBurst(id, 2);
    expect((await stack.request('POST', '/v1/memories', memory(id, 51))).status).toBe(202);
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
  });

  it('a batch that would pass the limit writes nothing', async () => {
    const created = await stack.request<{ id: string }>('POST', '/v1/tasks', { intent: 'Batch', schedule: { every: '1h' }, namespace: 'limits' });
    const id = created.body.id;
    const other = await stack.request<{ id: string }>('POST', '/v1/tasks', { intent: 'Other', schedule: { every: '1h' }, namespace: 'limits' });
    const res = await stack.request<ErrorBody>('POST', '/v1/memories/batch', {
      memories: [memory(other.body.id, 0), ...Array.from({ length: 51 }, (_, i) => memory(id, i))],
    });
    expect(res.status).toBe(429);
    const { rows } = await stack.deps.pool.query('SELECT count(*)::int AS n FROM episode WHERE task_id = ANY($1::uuid[])', [[id, other.body.id]]);
    expect(rows[0].n).toBe(0);
    const { rows: counted } = await stack.deps.pool.query('SELECT coalesce(sum(writes), 0)::int AS n FROM task_burst WHERE task_id = $1', [other.body.id]);
    expect(counted[0].n).toBe(0);
    await stack.request('POST', `/v1/tasks/${id}/cancel`);
    await stack.request('POST', `/v1/tasks/${other.body.id}/cancel`);
  });

  it('refuses a task of another namespace or an unknown one with 400 on task_id', async () => {
    const created = await stack.request<{ id: string }>('POST', '/v1/tasks', { intent: 'Mine', schedule: { every: '1h' }, namespace: 'limits' });
    const foreign = await stack.request<ErrorBody>('POST', '/v1/memories', memory(created.body.id, 0, { namespace: 'someone-else' }));
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details!.map((d) => d.field)).toEqual(['task_id']);
    const unknown = await stack.request<ErrorBody>('POST', '/v1/memories/batch', { memories: [memory('00000000-0000-4000-8000-0000000000ff', 0)] });
    expect(unknown.body.error.details!.map((d) => d.field)).toEqual(['memories.0.task_id']);
    const malformed = await stack.request<ErrorBody>('POST', '/v1/memories', memory('not-a-uuid', 0));
    expect(malformed.body.error.details!.map((d) => d.field)).toEqual(['task_id']);
    const { rows } = await stack.deps.pool.query(`SELECT count(*)::int AS n FROM episode WHERE namespace = 'someone-else' OR task_id = '00000000-0000-4000-8000-0000000000ff'`);
    expect(rows[0].n).toBe(0);
    await stack.request('POST', `/v1/tasks/${created.body.id}/cancel`);
  });
});
