import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../api/app.js';
import { createApiKey } from '../core/auth/apiKeys.js';
import { buildDeps } from '../core/buildDeps.js';
import { sessionWorkflowId, stateQuery, type SessionStateView } from '../core/sessions/contracts.js';
import type { SessionView } from '../core/sessions/read.js';
import { archiveSession } from '../core/sessions/archive.js';
import { foldSession } from '../core/sessions/fold.js';
import { foldTurnsHeuristically } from '../core/sessions/heuristicSummary.js';
import { createTemporalHandle } from '../core/temporal/client.js';
import { startWorker } from '../workers/runtime.js';
import { ADMIN_KEY, startTestStack, type TestStack } from './support/stack.js';
import { eventually } from './support/eventually.js';

interface ErrorBody {
  error: { code: string; message: string; details: Array<{ field: string; message: string }> | null };
}
interface Accepted {
  task_id: string;
  turn_index: number;
  workflow_id: string;
}

describe('working memory sessions API', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  const post = (taskId: string, body: Record<string, unknown>, key?: string) =>
    stack.request<Accepted & ErrorBody>('POST', `/v1/sessions/${encodeURIComponent(taskId)}/turns`, body, key);
  const view = (taskId: string, namespace = 'sessions', key?: string) =>
    stack.request<SessionView & ErrorBody>('GET', `/v1/sessions/${encodeURIComponent(taskId)}?namespace=${namespace}`, undefined, key);
  const workflowState = (namespace: string, taskId: string) =>
    stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId(namespace, taskId)).query(stateQuery);

  it('acknowledges turns with their index and serves them back in order', async () => {
    const turns = [
      { role: 'system', content: 'You help plan the storage migration.' },
      { role: 'user', content: 'Which database should we use?', user_id: 'alice', agent_id: 'planner' },
      { role: 'tool', content: 'benchmark', tool_result: { p95_ms: 12, engine: 'postgres' } },
      { role: 'assistant', content: 'PostgreSQL: it was fastest.' },
    ];
    for (const [i, turn] of turns.entries()) {
      const res = await post('task-round-trip', { ...turn, namespace: 'sessions' });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ task_id: 'task-round-trip', turn_index: i, workflow_id: 'session:sessions:task-round-trip' });
    }
    const res = await view('task-round-trip');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ task_id: 'task-round-trip', status: 'active', summary: null, turn_count: 4 });
    expect(res.body.turns.map((t) => [t.turn_index, t.role, t.content])).toEqual(turns.map((t, i) => [i, t.role, t.content]));
    expect(res.body.turns[2].tool_result).toEqual({ p95_ms: 12, engine: 'postgres' });
    expect(Date.parse(res.body.expires_at!) - Date.parse(res.body.last_activity_at)).toBe(3_600_000);

    const { rows } = await stack.deps.pool.query('SELECT user_id, agent_id, workflow_id FROM work_session WHERE task_id = $1', ['task-round-trip']);
    expect(rows).toEqual([{ user_id: 'alice', agent_id: 'planner', workflow_id: 'session:sessions:task-round-trip' }]);
    const audit = await stack.deps.pool.query<{ action: string; n: number }>(
      `SELECT action, count(*)::int AS n FROM audit_log WHERE namespace = 'sessions' AND action LIKE 'session.%' AND workflow_id = $1 GROUP BY action ORDER BY action`,
      ['session:sessions:task-round-trip'],
    );
    expect(audit.rows).toEqual([{ action: 'session.open', n: 1 }, { action: 'session.turn', n: 4 }]);
    const state = await eventually(() => workflowState('sessions', 'task-round-trip'), (s) => s.turnCount === 4, 'the workflow seeing 4 turns');
    expect(state).toMatchObject({ status: 'active', summarizedThrough: 0, ttlMs: 3_600_000 });
  });

  it('rejects bad input with 400 naming the field, and writes nothing', async () => {
    const cases: Array<{ body: Record<string, unknown>; field: string }> = [
      { body: { role: 'robot', content: 'hi' }, field: 'role' },
      { body: { role: 'user' }, field: 'content' },
      { body: { role: 'user', content: '  ' }, field: 'content' },
      { body: { role: 'user', content: 'hi', ttl_seconds: 0 }, field: 'ttl_seconds' },
      { body: { role: 'user', content: 'hi', ttl_seconds: 1.5 }, field: 'ttl_seconds' },
      { body: { role: 'user', content: 'hi', namespace: 'bad namespace!' }, field: 'namespace' },
      { body: { role: 'user', content: 'hi', colour: 'red' }, field: '(body)' },
    ];
    for (const c of cases) {
      const res = await post('task-bad-input', c.body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
      expect(res.body.error.details!.map((d) => d.field)).toContain(c.field);
    }
    const longId = await post('x'.repeat(201), { role: 'user', content: 'hi' });
    expect(longId.status).toBe(400);
    expect(longId.body.error.details!.map((d) => d.field)).toContain('task_id');
    const badQuery = await stack.request<ErrorBody>('GET', '/v1/sessions/task-bad-input?namespace=bad%20ns!');
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.error.details!.map((d) => d.field)).toContain('namespace');
    const { rows } = await stack.deps.pool.query(`SELECT 1 FROM work_session WHERE task_id = 'task-bad-input'`);
    expect(rows).toHaveLength(0);
  });

  it('answers 404 for an unknown task, and keeps namespaces apart', async () => {
    const unknown = await view('no-such-task');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');

    expect((await post('task-private', { role: 'user', content: 'My passport number is 123.', namespace: 'sessions-a' })).status).toBe(202);
    const other = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'sessions-b' });
    const asked = await view('task-private', 'sessions-a', other.key);
    expect(asked.status).toBe(403);
    expect(asked.body.error.code).toBe('forbidden');
    const own = await stack.request<ErrorBody>('GET', '/v1/sessions/task-private', undefined, other.key);
    expect(own.status).toBe(404);
    const write = await post('task-private', { role: 'user', content: 'hi', namespace: 'sessions-a' }, other.key);
    expect(write.status).toBe(403);
    // The same task id in the key's own namespace is another session.
    expect((await post('task-private', { role: 'user', content: 'Hello from b.' }, other.key)).body.turn_index).toBe(0);
    expect((await view('task-private', 'sessions-a', ADMIN_KEY)).body.turn_count).toBe(1);
  });

  it('gives concurrent first turns distinct indexes in one session', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => post('task-race', { role: 'user', content: `turn ${i}`, namespace: 'sessions' })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(202));
    expect(results.map((r) => r.body.turn_index).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const { rows } = await stack.deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM work_session WHERE task_id = 'task-race'`);
    expect(rows[0].n).toBe(1);
    expect((await view('task-race')).body.turns).toHaveLength(8);
  });

  it('folds the oldest turns into a summary at turn 21, keeping the decision and the entity', async () => {
    const taskId = 'task-summary';
    const opening = [
      { role: 'user', content: 'We need a storage plan for the Orion project. Priya Sharma from Helix Labs will review it.' },
      { role: 'assistant', content: 'We decided to use PostgreSQL for the event store.' },
      { role: 'user', content: 'I will send the migration plan to Priya by Friday.' },
    ];
    const bodies = [...opening];
    for (let i = bodies.length; i < 21; i++) bodies.push({ role: i % 2 ? 'assistant' : 'user', content: i % 2 ? `Noted (${i}).` : `Cache sizes, round ${i}.` });
    for (const body of bodies.slice(0, 20)) expect((await post(taskId, { ...body, namespace: 'sessions', user_id: 'alice' })).status).toBe(202);
    await eventually(() => workflowState('sessions', taskId), (s) => s.turnCount === 20, 'the workflow seeing 20 turns');
    expect((await view(taskId)).body.summary).toBeNull();

    expect((await post(taskId, { ...bodies[20], namespace: 'sessions' })).body.turn_index).toBe(20);
    const folded = await eventually(() => view(taskId), (r) => r.body.summary !== null, 'the fold at turn 21');
    expect(folded.body.summary).toContain('We decided to use PostgreSQL for the event store.');
    expect(folded.body.summary).toContain('Priya Sharma');
    expect(folded.body.turns.length).toBeLessThanOrEqual(10);
    expect(folded.body.turns.map((t) => t.turn_index)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(folded.body.turn_count).toBe(21);

    const summaries = await stack.deps.pool.query<{ through_turn: number; final: boolean; episode_id: string }>(
      `SELECT s.through_turn, s.final, s.episode_id FROM session_summary s JOIN work_session w ON w.id = s.session_id WHERE w.task_id = $1`,
      [taskId],
    );
    expect(summaries.rows).toEqual([{ through_turn: 11, final: false, episode_id: expect.any(String) }]);
    const episode = await stack.deps.pool.query<{ source: string; namespace: string; user_id: string; content: string; metadata: Record<string, unknown> }>(
      'SELECT source, namespace, user_id, content, metadata FROM episode WHERE id = $1',
      [summaries.rows[0].episode_id],
    );
    expect(episode.rows[0]).toMatchObject({ source: `session:${taskId}`, namespace: 'sessions', user_id: 'alice', metadata: { kind: 'session_summary', through_turn: 11 } });
    expect(episode.rows[0].content).toContain('PostgreSQL');
    // Its extraction runs like any memory's.
    const extracted = await eventually(
      () => stack.request<{ status: string }>('GET', `/v1/memories/${summaries.rows[0].episode_id}`),
      (r) => r.body.status === 'extracted',
      'the summary episode extracted',
    );
    expect(extracted.status).toBe(200);
    const state = await workflowState('sessions', taskId);
    expect(state).toMatchObject({ turnCount: 21, summarizedThrough: 11, status: 'active' });
  });

  it('continues as new after 200 turns without losing state', async () => {
    const taskId = 'task-long';
    const first = await post(taskId, { role: 'user', content: 'turn 0', namespace: 'sessions' });
    expect(first.status).toBe(202);
    const handle = stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId('sessions', taskId));
    const firstRunId = (await handle.describe()).runId;
    for (let batch = 1; batch <= 205; batch += 17) {
      const size = Math.min(17, 206 - batch);
      await Promise.all(Array.from({ length: size }, (_, i) => post(taskId, { role: i % 2 ? 'assistant' : 'user', content: `turn ${batch + i}`, namespace: 'sessions' })));
    }
    await eventually(
      () => stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId('sessions', taskId), firstRunId).describe(),
      (d) => d.status.name === 'CONTINUED_AS_NEW',
      'the first run continuing as new',
    );
    // The latest run holds every turn although it handled only the signals that came after the hand-over.
    const state = await eventually(
      () => workflowState('sessions', taskId),
      (s) => s.turnCount === 206 && s.signalsThisRun < 206 && s.turnCount - s.summarizedThrough <= 20,
      'the new run caught up',
    );
    expect(state.status).toBe('active');
    const v = (await view(taskId)).body;
    expect(v.turn_count).toBe(206);
    expect(v.turns.length).toBeLessThanOrEqual(20);
    expect(v.turns.at(-1)!.turn_index).toBe(205);
  });

  it('folds and archives idempotently, and never archives a running persistent task', async () => {
    const taskId = '6f1c8a52-3a57-4b0e-9d43-0c2f7d1f0a11';
    await stack.deps.pool.query(
      `INSERT INTO persistent_task (id, namespace, intent, schedule, error_budget, error_budget_remaining, workflow_id)
       VALUES ($1, 'sessions', 'nightly report', '{}', 1, 1, 'task:x')`,
      [taskId],
    );
    for (let i = 0; i < 4; i++) await post(taskId, { role: 'user', content: `We decided on option ${i}.`, namespace: 'sessions' });
    const { rows } = await stack.deps.pool.query<{ id: string }>('SELECT id FROM work_session WHERE task_id = $1', [taskId]);
    const sessionId = rows[0].id;
    const summarizer = async (...args: Parameters<typeof foldTurnsHeuristically>) => foldTurnsHeuristically(...args);
    const cause = { actor: 'test' };

    expect(await foldSession(stack.deps, summarizer, sessionId, 2, cause)).toEqual({ summarizedThrough: 2 });
    expect(await foldSession(stack.deps, summarizer, sessionId, 2, cause)).toEqual({ summarizedThrough: 2 });
    expect(await archiveSession(stack.deps, sessionId, { summarizer })).toEqual({ archived: false, outcome: 'kept-alive' });
    expect(await archiveSession(stack.deps, sessionId, { summarizer, expectedTurnCount: 3 })).toEqual({ archived: false, outcome: 'new-turns' });

    await stack.deps.pool.query(`UPDATE persistent_task SET status = 'cancelled' WHERE id = $1`, [taskId]);
    expect(await archiveSession(stack.deps, sessionId, { summarizer })).toEqual({ archived: true, outcome: 'archived' });
    expect(await archiveSession(stack.deps, sessionId, { summarizer })).toEqual({ archived: false, outcome: 'not-active' });

    const summaries = await stack.deps.pool.query<{ through_turn: number; final: boolean }>(
      'SELECT through_turn, final FROM session_summary WHERE session_id = $1 ORDER BY through_turn',
      [sessionId],
    );
    expect(summaries.rows).toEqual([{ through_turn: 2, final: false }, { through_turn: 4, final: true }]);
    const episodes = await stack.deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM episode WHERE source = $1`, [`session:${taskId}`]);
    expect(episodes.rows[0].n).toBe(2);
    const v = (await view(taskId)).body;
    expect(v).toMatchObject({ status: 'archived', turns: [], turn_count: 4 });
    expect(v.summary).toContain('We decided on option 0.');
    expect(v.summary).toContain('We decided on option 3.');
  });

  it('loses no turn across a restart of the worker and the API', async () => {
    const taskId = 'task-restart';
    expect((await post(taskId, { role: 'user', content: 'Before the restart.', namespace: 'sessions' })).status).toBe(202);
    await eventually(() => workflowState('sessions', taskId), (s) => s.turnCount === 1, 'the workflow seeing the first turn');
    await stack.worker!.shutdown();

    for (let i = 1; i <= 3; i++) expect((await post(taskId, { role: 'user', content: `While the worker is down ${i}.`, namespace: 'sessions' })).body.turn_index).toBe(i);

    // A fresh API process and worker on the same database and task queue.
    const deps = buildDeps(stack.deps.config, { temporal: createTemporalHandle(stack.deps.config) });
    const server: Server = await new Promise((resolve) => {
      const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
    });
    const worker = await startWorker(deps, { ensureSchedules: false });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/sessions/${taskId}?namespace=sessions`;
      const res = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      const body = (await res.json()) as SessionView;
      expect(body.turns.map((t) => t.content)).toEqual(['Before the restart.', 'While the worker is down 1.', 'While the worker is down 2.', 'While the worker is down 3.']);
      const state: SessionStateView = await eventually(() => workflowState('sessions', taskId), (s) => s.turnCount === 4, 'the workflow catching up');
      expect(state.status).toBe('active');
      const after = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/sessions/${taskId}/turns`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'assistant', content: 'After the restart.', namespace: 'sessions' }),
      });
      expect(((await after.json()) as Accepted).turn_index).toBe(4);
      await eventually(() => workflowState('sessions', taskId), (s) => s.turnCount === 5, 'the workflow continuing');
    } finally {
      await worker.shutdown();
      await new Promise((resolve) => server.close(resolve));
      await deps.close();
    }
  });
});
