import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { RECENT_BURSTS, type BurstResult, type PersistentTaskInput } from '../core/tasks/contracts.js';
import { cronProblem, nextBurstAt, parseEvery, scheduleProblem } from '../core/tasks/schedule.js';
import { PersistentTaskState } from '../core/tasks/state.js';
import { callTaskWebhook } from '../core/tasks/webhook.js';

const TASK: PersistentTaskInput = {
  taskId: '00000000-0000-4000-8000-000000000001',
  namespace: 'unit',
  intent: 'Watch the build',
  schedule: { every: '1h' },
  webhookUrl: null,
  errorBudget: 2,
};
const T0 = '2026-01-01T00:00:00.000Z';
const ok = (answer: BurstResult['answer'] = null): BurstResult => ({ outcome: 'ok', httpStatus: 200, error: null, answer, finishedAt: T0 });
const failed: BurstResult = { outcome: 'failed', httpStatus: 500, error: 'webhook answered HTTP 500', answer: null, finishedAt: T0 };

/** A task whose next burst is planned, ready to begin one. */
function planned(input: Partial<PersistentTaskInput> = {}): PersistentTaskState {
  const task = new PersistentTaskState({ ...TASK, ...input });
  task.planNext(T0);
  return task;
}

function runBurst(task: PersistentTaskState, result: BurstResult) {
  task.planNext(T0);
  const { burst, scheduledAt } = task.beginBurst();
  return task.finishBurst(burst, scheduledAt, result);
}

describe('PersistentTaskState', () => {
  it('starts active with its whole budget and no burst planned', () => {
    const view = new PersistentTaskState(TASK).view();
    expect(view).toMatchObject({ status: 'active', error_budget: 2, error_budget_remaining: 2, current_burst: 0, bursts: [], next_burst_at: null });
    expect(view.progress).toEqual({ note: null, percent: null, updated_at: null });
  });

  it('numbers bursts and keeps the last ten, newest first', () => {
    const task = planned();
    for (let i = 0; i < 12; i++) runBurst(task, ok());
    const view = task.view();
    expect(view.current_burst).toBe(12);
    expect(view.bursts).toHaveLength(RECENT_BURSTS);
    expect(view.bursts.map((b) => b.burst)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    expect(view.next_burst_at).toBeNull();
  });

  it('spends one unit of budget per failed burst and pauses itself when none is left', () => {
    const task = planned();
    expect(runBurst(task, failed)).toEqual({ budgetSpent: false, reason: null });
    expect(task.view()).toMatchObject({ status: 'active', error_budget_remaining: 1 });
    const verdict = runBurst(task, failed);
    expect(verdict.budgetSpent).toBe(true);
    expect(verdict.reason).toContain('burst 2 failed: webhook answered HTTP 500');
    expect(task.view()).toMatchObject({ status: 'paused', error_budget_remaining: 0, next_burst_at: null });
  });

  it('a successful burst costs nothing and applies the webhook answer', () => {
    const task = planned();
    runBurst(task, ok({ progress: { note: 'compiled', percent: 40 } }));
    expect(task.view()).toMatchObject({ status: 'active', error_budget_remaining: 2, progress: { note: 'compiled', percent: 40, updated_at: T0 } });
    runBurst(task, ok({ progress: { percent: 60 } }));
    expect(task.view().progress).toMatchObject({ note: 'compiled', percent: 60 });
    runBurst(task, ok({ done: true }));
    expect(task.view()).toMatchObject({ status: 'completed', next_burst_at: null });
    expect(task.isFinished).toBe(true);
  });

  it('resume refills a spent budget; setBudget sets and refills it', () => {
    const task = planned({ errorBudget: 1 });
    runBurst(task, failed);
    expect(task.status).toBe('paused');
    expect(task.resume()).toBe(true);
    expect(task.view()).toMatchObject({ status: 'active', error_budget: 1, error_budget_remaining: 1 });
    expect(task.setBudget(5)).toBe(true);
    expect(task.view()).toMatchObject({ error_budget: 5, error_budget_remaining: 5 });
  });

  it('pause clears the planned burst; resume of an active task and signals to a finished one change nothing', () => {
    const task = planned();
    expect(task.resume()).toBe(false);
    expect(task.pause()).toBe(true);
    expect(task.view()).toMatchObject({ status: 'paused', next_burst_at: null });
    expect(task.pause()).toBe(false);
    expect(task.planNext(T0)).toBe(false);
    expect(task.cancel()).toBe(true);
    const version = task.version;
    expect([task.resume(), task.pause(), task.cancel(), task.setBudget(3), task.recordProgress({ note: 'late' }, new Date(T0))]).toEqual([false, false, false, false, false]);
    expect(task.version).toBe(version);
    expect(task.status).toBe('cancelled');
  });

  it('progress with done completes the task; a percentage is kept until replaced', () => {
    const task = planned();
    task.recordProgress({ note: 'half', percent: 50 }, new Date(T0));
    task.recordProgress({ note: 'more' }, new Date('2026-01-02T00:00:00Z'));
    expect(task.view().progress).toEqual({ note: 'more', percent: 50, updated_at: '2026-01-02T00:00:00.000Z' });
    task.recordProgress({ note: 'finished', done: true }, new Date(T0));
    expect(task.status).toBe('completed');
  });

  it('a burst that finishes after a pause or cancel leaves that status alone', () => {
    const task = planned();
    const { burst, scheduledAt } = task.beginBurst();
    task.cancel();
    task.finishBurst(burst, scheduledAt, ok({ progress: { note: 'ignored' }, done: true }));
    expect(task.status).toBe('cancelled');
    expect(task.view().progress.note).toBeNull();
    expect(task.view().bursts).toHaveLength(1);
  });

  it('refuses to begin a burst that is not due', () => {
    const task = new PersistentTaskState(TASK);
    expect(() => task.beginBurst()).toThrow(/no burst is due/);
  });

  it('carries its whole state across continue-as-new', () => {
    const task = planned();
    runBurst(task, failed);
    task.recordProgress({ note: 'carried', percent: 10 }, new Date(T0));
    task.planNext('2026-01-01T01:00:00.000Z');
    const next = new PersistentTaskState({ ...TASK, carried: task.carry() });
    expect(next.view()).toEqual(task.view());
    expect(next.lastScheduledAt).toBe(T0);
    // The carried copy is independent of the old run's state.
    runBurst(next, ok());
    expect(task.view().current_burst).toBe(1);
  });

  it('every change bumps the version the workflow persists by', () => {
    const task = new PersistentTaskState(TASK);
    const before = task.version;
    task.planNext(T0);
    task.beginBurst();
    expect(task.version).toBe(before + 2);
  });
});

describe('task schedules', () => {
  it('parses intervals from 1s to 366d and nothing else', () => {
    expect(parseEvery('30s')).toBe(30_000);
    expect(parseEvery('15m')).toBe(900_000);
    expect(parseEvery('1h')).toBe(3_600_000);
    expect(parseEvery('1d')).toBe(86_400_000);
    for (const bad of ['0s', '1', '1w', '1.5h', '10 minutes', ' 1h', '367d', '-1h', '']) expect(parseEvery(bad)).toBeNull();
  });

  it('accepts five-field UTC cron expressions only', () => {
    expect(cronProblem('*/5 * * * *')).toBeNull();
    expect(cronProblem('0 9 * * MON-FRI')).toBeNull();
    expect(cronProblem('0 9 * * THU')).toBeNull();
    expect(cronProblem('0 0 9 * * *')).toMatch(/five fields/);
    expect(cronProblem('@daily')).toMatch(/five fields/);
    expect(cronProblem('H * * * *')).toMatch(/hashed/);
    expect(cronProblem('61 * * * *')).not.toBeNull();
    expect(scheduleProblem({ every: '10 minutes' })).toMatchObject({ field: 'every' });
    expect(scheduleProblem({ cron: 'not a cron' })).toMatchObject({ field: 'cron' });
  });

  it('an interval keeps its cadence and skips the times it missed', () => {
    const after = new Date('2026-01-01T00:00:00Z');
    expect(nextBurstAt({ every: '1h' }, after, after).toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(nextBurstAt({ every: '1h' }, after, new Date('2026-01-01T03:30:00Z')).toISOString()).toBe('2026-01-01T04:00:00.000Z');
    expect(nextBurstAt({ every: '1h' }, after, new Date('2026-01-01T04:00:00Z')).toISOString()).toBe('2026-01-01T05:00:00.000Z');
  });

  it('reads cron expressions in UTC', () => {
    const now = new Date('2026-01-01T09:30:00Z');
    expect(nextBurstAt({ cron: '0 9 * * *' }, now, now).toISOString()).toBe('2026-01-02T09:00:00.000Z');
    expect(nextBurstAt({ cron: '*/15 * * * *' }, new Date('2026-01-01T00:00:00Z'), now).toISOString()).toBe('2026-01-01T09:45:00.000Z');
  });

  it('the next burst is always after both the last one and now, within one interval of now', () => {
    const t = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) });
    fc.assert(
      fc.property(t, t, fc.integer({ min: 1, max: 1000 }), fc.constantFrom('s', 'm', 'h'), (a, n, amount, unit) => {
        const after = new Date(a);
        const now = new Date(n);
        const every = parseEvery(`${amount}${unit}`)!;
        const next = nextBurstAt({ every: `${amount}${unit}` }, after, now).getTime();
        return next > a && next > n && next - Math.max(a, n) <= every && (next - a) % every === 0;
      }),
    );
  });
});

describe('task webhook', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: string } = { status: 200, body: '' };
  const received: unknown[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const payload = { task_id: TASK.taskId, burst: 1, intent: 'x', progress: null, working_memory: null };

  it('posts the payload and validates the answer', async () => {
    answer = { status: 200, body: JSON.stringify({ progress: 'reading mail', done: false, extra: 1 }) };
    expect(await callTaskWebhook(url, payload)).toEqual({ outcome: 'ok', httpStatus: 200, error: null, answer: { progress: { note: 'reading mail' }, done: false } });
    expect(received.at(-1)).toEqual(payload);
    answer = { status: 204, body: '' };
    expect(await callTaskWebhook(url, payload)).toMatchObject({ outcome: 'ok', answer: {} });
  });

  it('reports every failure as a failed burst', async () => {
    answer = { status: 500, body: 'boom' };
    expect(await callTaskWebhook(url, payload)).toMatchObject({ outcome: 'failed', httpStatus: 500, error: 'webhook answered HTTP 500' });
    answer = { status: 200, body: '{"done": "yes"}' };
    expect(await callTaskWebhook(url, payload)).toMatchObject({ outcome: 'failed', error: expect.stringContaining('invalid webhook answer: done') });
    answer = { status: 200, body: 'not json' };
    expect(await callTaskWebhook(url, payload)).toMatchObject({ outcome: 'failed', error: 'webhook answer is not JSON' });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await callTaskWebhook(`http://127.0.0.1:${port}/`, payload)).toMatchObject({ outcome: 'failed', httpStatus: null, error: expect.stringContaining('ECONNREFUSED') });
  });

  it('gives up on a webhook that does not answer in time', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const result = await callTaskWebhook(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, payload, 200);
      expect(result).toMatchObject({ outcome: 'failed', error: 'webhook did not answer within 200 ms' });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
