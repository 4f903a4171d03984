import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { sessionWorkflowId, stateQuery, type SessionStateView } from '../core/sessions/contracts.js';
import type { SessionView } from '../core/sessions/read.js';
import { startTestStack, type TestStack } from './support/stack.js';
import { startTimeSkippingEnvironment, timeSkippingAddress } from './support/timeSkipping.js';
import { eventually } from './support/eventually.js';

const NS = 'sessions-ttl';

/**
 * The inactivity timer, on Temporal's time-skipping server: `env.sleep` moves
 * the server's clock, so an hour of inactivity passes in milliseconds.
 */
describe('session inactivity TTL', () => {
  let env: TestWorkflowEnvironment;
  let stack: TestStack;
  beforeAll(async () => {
    try {
      // Before the environment installs the SDK's default (console, INFO) logger: workflow logs stay out of the test output.
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // Already installed in this process.
    }
    env = await startTimeSkippingEnvironment();
    stack = await startTestStack({ temporalAddress: timeSkippingAddress(env), env: { EMBEDDING_PROVIDER: 'hash' } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await env?.teardown();
  });

  const post = async (taskId: string, body: Record<string, unknown>) => {
    const res = await stack.request<{ turn_index: number }>('POST', `/v1/sessions/${taskId}/turns`, { namespace: NS, ...body });
    expect(res.status).toBe(202);
    return res.body.turn_index;
  };
  const view = async (taskId: string) => (await stack.request<SessionView>('GET', `/v1/sessions/${taskId}?namespace=${NS}`)).body;
  const state = (taskId: string) => stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId(NS, taskId)).query(stateQuery);
  /** A turn, and the workflow having seen it (so its timer counts from this turn). */
  const turn = async (taskId: string, content: string, extra: Record<string, unknown> = {}): Promise<SessionStateView> => {
    const index = await post(taskId, { role: 'user', content, ...extra });
    return eventually(() => state(taskId), (s) => s.turnCount === index + 1 && s.status === 'active', `the workflow seeing turn ${index}`);
  };
  const archived = (taskId: string) => eventually(() => view(taskId), (v) => v.status === 'archived', `${taskId} archived`);

  it('archives a session after the TTL, with a final summary written as an episode', async () => {
    await turn('ttl-expire', 'We decided to ship the Apollo release on Monday.', { user_id: 'bob' });
    await turn('ttl-expire', 'I will write the release notes.');
    await env.sleep('61m');
    const v = await archived('ttl-expire');
    expect(v.summary).toContain('We decided to ship the Apollo release on Monday.');
    expect(v.turns).toEqual([]);
    expect(v.turn_count).toBe(2);

    const { rows } = await stack.deps.pool.query<{ final: boolean; through_turn: number; source: string; user_id: string; archived_at: Date | null }>(
      `SELECT s.final, s.through_turn, e.source, e.user_id, w.archived_at
         FROM work_session w JOIN session_summary s ON s.session_id = w.id JOIN episode e ON e.id = s.episode_id
        WHERE w.task_id = 'ttl-expire'`,
    );
    expect(rows).toEqual([{ final: true, through_turn: 2, source: 'session:ttl-expire', user_id: 'bob', archived_at: expect.any(Date) }]);
    // The run completed: its history ends with the archive.
    const description = await stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId(NS, 'ttl-expire')).describe();
    expect(description.status.name).toBe('COMPLETED');
  });

  it('resets the timer on every turn', async () => {
    await turn('ttl-reset', 'first');
    await env.sleep('40m');
    await turn('ttl-reset', 'second');
    await env.sleep('40m');
    expect((await view('ttl-reset')).status).toBe('active');
    expect((await state('ttl-reset')).status).toBe('active');
    await env.sleep('30m');
    await archived('ttl-reset');
  });

  it('honours a per-session ttl_seconds', async () => {
    await turn('ttl-short', 'short lived', { ttl_seconds: 120 });
    await turn('ttl-default', 'default ttl');
    await env.sleep('3m');
    await archived('ttl-short');
    expect((await view('ttl-default')).status).toBe('active');
    expect((await view('ttl-short')).expires_at).not.toBeNull();
  });

  it('opens a fresh active session for a turn after expiry', async () => {
    await turn('ttl-reopen', 'before expiry');
    await env.sleep('2h');
    await archived('ttl-reopen');
    const firstRun = await stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId(NS, 'ttl-reopen')).describe();

    expect(await post('ttl-reopen', { role: 'user', content: 'after expiry' })).toBe(0);
    const v = await view('ttl-reopen');
    expect(v).toMatchObject({ status: 'active', summary: null, turn_count: 1 });
    expect(v.turns.map((t) => t.content)).toEqual(['after expiry']);
    const { rows } = await stack.deps.pool.query<{ status: string }>(`SELECT status FROM work_session WHERE task_id = 'ttl-reopen' ORDER BY created_at`);
    expect(rows.map((r) => r.status)).toEqual(['archived', 'active']);
    const second = await eventually(() => state('ttl-reopen'), (s) => s.turnCount === 1, 'the new run seeing the turn');
    expect(second.status).toBe('active');
    const secondRun = await stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId(NS, 'ttl-reopen')).describe();
    expect(secondRun.runId).not.toBe(firstRun.runId);
    expect(secondRun.status.name).toBe('RUNNING');
  });

  it("keeps a persistent task's session alive while the task is active", async () => {
    const taskId = randomUUID();
    await stack.deps.pool.query(
      `INSERT INTO persistent_task (id, namespace, intent, schedule, error_budget, error_budget_remaining, workflow_id)
       VALUES ($1, $2, 'watch the build', '{"every": "1h"}', 3, 3, $3)`,
      [taskId, NS, `task:${taskId}`],
    );
    const first = await turn(taskId, 'burst 1 started');
    const { rows } = await stack.deps.pool.query<{ persistent_task_id: string }>('SELECT persistent_task_id FROM work_session WHERE task_id = $1', [taskId]);
    expect(rows[0].persistent_task_id).toBe(taskId);

    await env.sleep('3h');
    // The timer fired and was re-armed instead of archiving.
    await eventually(() => state(taskId), (s) => s.expiresAtMs > first.expiresAtMs, 'the timer re-armed');
    expect((await view(taskId)).status).toBe('active');

    await stack.deps.pool.query(`UPDATE persistent_task SET status = 'completed' WHERE id = $1`, [taskId]);
    await env.sleep('2h');
    await archived(taskId);
  });
});
