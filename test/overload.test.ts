import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ADMIN_KEY, startTestStack, type TestStack } from './support/stack.js';
import { spawnWorkerProcess, stopProcess } from './support/workerProcess.js';

/**
 * Graceful overload: an open-loop load (each request sent on its schedule,
 * whether or not earlier ones have answered, as agents do) at twice what this
 * machine serves, reads and writes mixed. Every answer is a success or a 503
 * with Retry-After, answered reads stay fast, and every acknowledged write is
 * extracted afterwards. OVERLOAD_TEST_SECONDS sets the load's length (short in
 * CI; the two minutes: OVERLOAD_TEST_SECONDS=120).
 */
const LOAD_SECONDS = Number(process.env.OVERLOAD_TEST_SECONDS ?? 20);
const NS = 'overload';
/** Small bounds, so that overload is reached within seconds. */
const ENV = { MAX_PENDING_EPISODES: '40', READ_CONCURRENCY: '2', READ_QUEUE_TIMEOUT_MS: '250' };

interface Answer {
  kind: 'read' | 'write';
  status: number;
  retryAfter: string | null;
  /** From when the request was due (not when it was sent): a late send counts against latency. */
  latencyMs: number;
  /** When it was due, in seconds from the open loop's start (its answers only). */
  dueS?: number;
  id?: string;
  error?: string;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ru', 'te', 'vo', 'zan', 'pe', 'su'];
function person(n: number): string {
  let name = '';
  for (let i = 0, k = n; i < 3; i++, k = Math.floor(k / SYLLABLES.length)) name += SYLLABLES[k % SYLLABLES.length];
  return name[0].toUpperCase() + name.slice(1);
}
const memory = (n: number) => ({ namespace: NS, content: `${person(n)} works at ${person(n + 7)}vex Labs and lives in ${person(n + 3)}ton.` });
const readRequest = (n: number): [string, unknown] =>
  n % 2 === 0
    ? ['/v1/context', { namespace: NS, query: `where does ${person(n % 60)} work`, max_tokens: 400 }]
    : ['/v1/search', { namespace: NS, query: `${person(n % 60)} lives in`, k: 10 }];

/** The three seconds of the load whose answered reads were slowest: when they were due, how many, the slowest. */
function slowestSeconds(answered: Answer[]): Array<{ second: number; answered: number; maxMs: number }> {
  const bySecond = new Map<number, number[]>();
  for (const a of answered) {
    const second = Math.floor(a.dueS ?? 0);
    const ms = bySecond.get(second) ?? [];
    ms.push(a.latencyMs);
    bySecond.set(second, ms);
  }
  return [...bySecond.entries()]
    .map(([second, ms]) => ({ second, answered: ms.length, maxMs: Math.round(Math.max(...ms)) }))
    .sort((a, b) => b.maxMs - a.maxMs)
    .slice(0, 3);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

describe('graceful overload', () => {
  let stack: TestStack;
  let extractionWorker: ChildProcess;

  beforeAll(async () => {
    // The API in this process; the worker in its own, as `npm run worker` runs it beside an API on one host:
    // at WORKER_NICE (10), so extraction yields the CPU to the reads a person waits for.
    stack = await startTestStack({ env: ENV, withWorker: false });
    extractionWorker = spawnWorkerProcess(stack.deps.config);
  });
  afterAll(async () => {
    await stopProcess(extractionWorker);
    await stack.stop();
  });

  async function send(kind: Answer['kind'], path: string, body: unknown, dueAt: number): Promise<Answer> {
    try {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      const answer: Answer = { kind, status: res.status, retryAfter: res.headers.get('retry-after'), latencyMs: performance.now() - dueAt };
      if (kind === 'write' && res.status === 202) answer.id = (JSON.parse(text) as { id: string }).id;
      return answer;
    } catch (err) {
      return { kind, status: 0, retryAfter: null, latencyMs: performance.now() - dueAt, error: String(err) };
    }
  }

  /** Statuses of the given episodes, counted. */
  async function statusCounts(ids: string[]): Promise<Record<string, number>> {
    const { rows } = await stack.deps.pool.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM episode WHERE id = ANY($1::uuid[]) GROUP BY status',
      [ids],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  async function waitExtracted(ids: string[], timeoutMs: number): Promise<Record<string, number>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const counts = await statusCounts(ids);
      if ((counts.extracted ?? 0) === ids.length || Date.now() > deadline) return counts;
      await sleep(250);
    }
  }

  /** Episodes extracted per second, from a batch written at once. */
  async function measureExtractionRate(): Promise<number> {
    const started = performance.now();
    const res = await stack.request<{ memories: Array<{ id: string }> }>('POST', '/v1/memories/batch', {
      memories: Array.from({ length: 30 }, (_, i) => memory(1000 + i)),
    });
    expect(res.status).toBe(202);
    const counts = await waitExtracted(res.body.memories.map((m) => m.id), 60_000);
    expect(counts.extracted).toBe(30);
    return 30 / ((performance.now() - started) / 1000);
  }

  /** Reads per second served with requests always waiting (closed loop, as many clients as the gate admits). */
  async function measureReadRate(): Promise<number> {
    const until = performance.now() + 2_000;
    let served = 0;
    let n = 0;
    await Promise.all(
      Array.from({ length: Number(ENV.READ_CONCURRENCY) }, async () => {
        while (performance.now() < until) {
          const [path, body] = readRequest(n++);
          const answer = await send('read', path, body, performance.now());
          if (answer.status === 200) served++;
        }
      }),
    );
    return served / 2;
  }

  /** Sends reads and writes at fixed rates for the given time, from a worker thread; resolves with every answer. */
  async function openLoop(readsPerSecond: number, writesPerSecond: number, seconds: number): Promise<Answer[]> {
    const streams = [
      { kind: 'read', perSecond: readsPerSecond, requests: Array.from({ length: 120 }, (_, n) => readRequest(n)).map(([path, body]) => ({ path, body })) },
      { kind: 'write', perSecond: writesPerSecond, requests: Array.from({ length: Math.ceil(writesPerSecond * seconds) + 1 }, (_, n) => ({ path: '/v1/memories', body: memory(n) })) },
    ];
    const worker = new Worker(path.join(process.cwd(), 'test/load/openLoop.mjs'), { workerData: { baseUrl: stack.baseUrl, key: ADMIN_KEY, seconds, streams } });
    try {
      return await new Promise<Answer[]>((resolve, reject) => {
        worker.once('message', (answers: Answer[]) => resolve(answers));
        worker.once('error', reject);
      });
    } finally {
      await worker.terminate();
    }
  }

  // On the embedded PGlite (one session for reads, writes and extraction) reads go first in the session
  // (core/embedded/sessionLock.ts): answered reads' p99 was 0.34-0.46 s in five runs alone, against 0.61-0.85 s
  // first come, first served (1.005 s once in a CI run).
  it(
    'answers every request with success or 503 + Retry-After, keeps answered reads under a second, and extracts every acknowledged write',
    async () => {
      const extractionRate = await measureExtractionRate();
      // The better of two windows: a CI run once measured 2.5 reads/s while another job briefly held the CPU, and
      // twice that was no overload (no read refused).
      const readRate = Math.max(await measureReadRate(), await measureReadRate());
      // The extraction rate is measured on a cold worker, so the machine may extract up to about twice as fast under
      // load: offered writes exceed that by enough to push the backlog past its bound within half the load (at just
      // twice the measured rate, a machine slowed by other work measured 2.5/s and never reached the bound).
      const backlogGrowth = (2 * Number(ENV.MAX_PENDING_EPISODES)) / LOAD_SECONDS;
      const offered = { reads: Math.ceil(2 * readRate), writes: Math.ceil(2 * extractionRate + backlogGrowth) };

      const answers = await openLoop(offered.reads, offered.writes, LOAD_SECONDS);

      const reads = answers.filter((a) => a.kind === 'read');
      const writes = answers.filter((a) => a.kind === 'write');
      const answeredReads = reads.filter((a) => a.status === 200).map((a) => a.latencyMs);
      const acknowledged = writes.filter((a) => a.status === 202).map((a) => a.id!);
      const summary = {
        seconds: LOAD_SECONDS,
        measured: { readsPerSecond: readRate, extractionsPerSecond: extractionRate },
        offered,
        reads: { sent: reads.length, answered: answeredReads.length, refused: reads.filter((a) => a.status === 503).length },
        writes: { sent: writes.length, acknowledged: acknowledged.length, refused: writes.filter((a) => a.status === 503).length },
        readLatencyMs: { p50: percentile(answeredReads, 50), p99: percentile(answeredReads, 99), max: percentile(answeredReads, 100) },
        // Where a slow tail came from (a stall of the whole machine shows as one or two seconds of slow reads).
        slowestReadSeconds: slowestSeconds(reads.filter((a) => a.status === 200)),
      };
      console.log(JSON.stringify(summary));

      const unexpected = answers.filter((a) => !(a.status >= 200 && a.status < 300) && !(a.status === 503 && /^\d+$/.test(a.retryAfter ?? '')));
      expect(unexpected.slice(0, 5)).toEqual([]);
      // The load was an overload: both bounds refused some of it, and still served some.
      expect(summary.reads.refused).toBeGreaterThan(0);
      expect(summary.writes.refused).toBeGreaterThan(0);
      expect(answeredReads.length).toBeGreaterThan(0);
      expect(acknowledged.length).toBeGreaterThan(0);
      expect(summary.readLatencyMs.p99).toBeLessThan(1_000);

      // Nothing acknowledged is lost: each acknowledged write is extracted once the load stops.
      const counts = await waitExtracted(acknowledged, 120_000);
      expect(counts).toEqual({ extracted: acknowledged.length });
    },
    LOAD_SECONDS * 1000 + 240_000,
  );
});
