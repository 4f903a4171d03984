// `npm run bench:write -- [--rate R | --rates 200,500,1000] [--duration 30] [--connections 50] [--workers 1] [--api-processes 1]`
//
// How fast POST /v1/memories acknowledges, and whether anything acknowledged
// goes missing, against the API and worker processes on a real PostgreSQL + a
// Temporal dev server, with the worker extracting meanwhile.
// - Open loop (`--rate`, `--rates`): a fixed offered rate, each write sent
//   when it is due whether or not earlier ones have answered (bench/lib/openLoop.ts:
//   a smooth schedule, latency from the due time), after 5 s of warm-up writes,
//   so the latency is the one users meet at that load, not at saturation. Each
//   rate also reports `generator_floor`: the same loop against a server that
//   answers at once.
// - Closed loop (no rate given, and after the rates of the default run): 50
//   connections as fast as they are answered, which measures saturation.
// With one `--rate R` the JSON keeps the closed-loop fields and adds
// `offered_rate`; the default run writes `{rates: [...], saturation}`. Each
// stage also counts the episodes extracted while its writes arrived
// (`extracted_meanwhile`, `extracted_per_s`).
// `--api-processes N` serves the API from N processes (API_PROCESSES), recorded as `api_processes`.
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { BENCH_KEY, parseArgs, startBenchStack, writeResult, type BenchStack } from './support/benchStack.js';
import { generatorFloor, openLoop } from './lib/openLoop.js';
import { percentile, round2 } from './lib/stats.js';
import { WRITE_SENTENCES } from './lib/writeSentences.js';

const args = parseArgs();
const closedConnections = Number(args.get('connections') ?? 50);
const duration = Number(args.get('duration') ?? 30);
const workers = Number(args.get('workers') ?? 1);
const apiProcesses = Number(args.get('api-processes') ?? 1);
const singleRate = args.has('rate') ? Number(args.get('rate')) : null;
const rates = singleRate !== null ? [singleRate] : (args.get('rates') ?? '200,500,1000').split(',').map(Number);
if (rates.some((r) => !Number.isFinite(r) || r <= 0)) throw new Error('--rate/--rates need positive numbers');
const log = (m: string) => console.log(`[bench:write] ${m}`);

interface Stage {
  offered_rate?: number;
  /** autocannon's connections (closed loop); null for the open loop, which opens what its schedule needs. */
  connections: number | null;
  workers: number;
  duration_s: number;
  requests: number;
  acknowledged: number;
  ack_p50_ms: number;
  ack_p90_ms: number;
  ack_p99_ms: number;
  ack_max_ms: number;
  requests_per_s: number;
  errors: number;
  lost: number;
  statuses_at_end: Record<string, number>;
  /** Answers other than 202 by status (0: the request failed outright, e.g. a reset connection). */
  errors_by_status?: Record<string, number>;
  /** The open loop's own latency at the same rate against a server that answers at once. */
  generator_floor?: { p50_ms: number; p99_ms: number; max_ms: number };
  /** Episodes (of any stage) whose extraction ended while this stage's writes arrived, and per second. */
  extracted_meanwhile: number;
  extracted_per_s: number;
}

let counter = 0;

const memoryBody = () => {
  const n = counter++;
  return { content: `${WRITE_SENTENCES[n % WRITE_SENTENCES.length]} (note ${n})`, user_id: `user-${n % 300}`, agent_id: 'bench' };
};

/** Statuses of the acknowledged episodes at the end of a stage, and how many of them the database does not hold. */
async function audit(db: pg.Client, acknowledged: string[]): Promise<{ lost: number; statuses_at_end: Record<string, number> }> {
  // Acknowledged is not extracted: extraction follows at the workers' pace (starts are paced, the rest left to reconcile).
  const { rows } = await db.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM episode WHERE id = ANY($1::uuid[]) GROUP BY status ORDER BY status',
    [acknowledged],
  );
  const stored = rows.reduce((sum, r) => sum + r.n, 0);
  return { lost: acknowledged.length - stored, statuses_at_end: Object.fromEntries(rows.map((r) => [r.status, r.n])) };
}

/** How much the workers extracted while a stage's writes arrived: "with the worker extracting meanwhile" as a figure. */
async function extractedBetween(db: pg.Client, since: Date, until: Date): Promise<{ extracted_meanwhile: number; extracted_per_s: number }> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM episode WHERE extracted_at >= $1 AND extracted_at < $2', [since, until]);
  return { extracted_meanwhile: rows[0].n, extracted_per_s: round2(rows[0].n / ((until.getTime() - since.getTime()) / 1000)) };
}

const countBy = (values: string[]) => Object.fromEntries([...new Set(values)].map((v) => [v, values.filter((x) => x === v).length]));

/** Open loop: `rate` writes a second sent on a smooth schedule (bench/lib/openLoop.ts), latency from each one's due time. */
async function openStage(stack: BenchStack, db: pg.Client, rate: number): Promise<Stage> {
  const since = new Date();
  const answers = await openLoop(stack.apiUrl, BENCH_KEY, [{ name: 'write', perSecond: rate, request: () => ({ method: 'POST', path: '/v1/memories', body: memoryBody() }) }], duration);
  const acknowledged = answers.filter((a) => a.status === 202).map((a) => (a.body as { id: string }).id);
  const latencies = answers.map((a) => a.latencyMs);
  const extracted = await extractedBetween(db, since, new Date());
  const floor = (await generatorFloor(rate, 5)).map((a) => a.latencyMs);
  return {
    offered_rate: rate,
    connections: null,
    workers,
    duration_s: duration,
    requests: answers.length,
    acknowledged: acknowledged.length,
    ack_p50_ms: round2(percentile(latencies, 50)),
    ack_p90_ms: round2(percentile(latencies, 90)),
    ack_p99_ms: round2(percentile(latencies, 99)),
    ack_max_ms: round2(Math.max(...latencies)),
    requests_per_s: round2(answers.length / duration),
    errors: answers.filter((a) => a.status !== 202).length,
    ...(await audit(db, acknowledged)),
    ...extracted,
    errors_by_status: countBy(answers.filter((a) => a.status !== 202).map((a) => (a.status ? String(a.status) : `0 ${a.error ?? ''}`.trim()))),
    generator_floor: { p50_ms: round2(percentile(floor, 50)), p99_ms: round2(percentile(floor, 99)), max_ms: round2(Math.max(...floor)) },
  };
}

/** Closed loop: `closedConnections` connections, each sending its next write as soon as the last is answered (saturation). */
async function closedStage(stack: BenchStack, db: pg.Client): Promise<Stage> {
  const acknowledged: string[] = [];
  const since = new Date();
  const result = await autocannon({
    url: `${stack.apiUrl}/v1/memories`,
    connections: closedConnections,
    duration,
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => ({ ...req, body: JSON.stringify(memoryBody()) }),
        onResponse: (status, body) => {
          if (status === 202) acknowledged.push((JSON.parse(body) as { id: string }).id);
        },
      },
    ],
  });
  return {
    connections: closedConnections,
    workers,
    duration_s: duration,
    requests: result.requests.total,
    acknowledged: acknowledged.length,
    ack_p50_ms: result.latency.p50,
    ack_p90_ms: result.latency.p90,
    ack_p99_ms: result.latency.p99,
    ack_max_ms: result.latency.max,
    requests_per_s: result.requests.average,
    errors: result.errors + result.non2xx + result.timeouts,
    ...(await extractedBetween(db, since, new Date())),
    ...(await audit(db, acknowledged)),
  };
}

/**
 * Writes at a low rate before anything is measured: the API's first writes pay for its connections, its first
 * backlog count and compiling the write path (the first half second of a cold run answered in up to 1.7 s).
 */
async function warmUp(stack: BenchStack): Promise<void> {
  await openLoop(stack.apiUrl, BENCH_KEY, [{ name: 'warm-up', perSecond: 100, request: () => ({ method: 'POST', path: '/v1/memories', body: memoryBody() }) }], 5, {
    bodies: false,
  });
}

const stack = await startBenchStack({ database: 'mnemo_bench_write', workers, env: { MAX_PENDING_EPISODES: '1000000', API_PROCESSES: String(apiProcesses) } });
const db = new pg.Client({ connectionString: stack.databaseUrl });
await db.connect();
try {
  const machine = { cores: os.cpus().length, api_processes: apiProcesses };
  if (singleRate !== null) {
    await warmUp(stack);
    const output = { ...(await openStage(stack, db, singleRate)), machine };
    console.log(JSON.stringify(output, null, 2));
    log(`written ${writeResult('write', output)}`);
  } else {
    const byRate: Stage[] = [];
    log('warming up: 100 writes/s for 5 s');
    await warmUp(stack);
    for (const rate of rates) {
      log(`offered ${rate} writes/s for ${duration} s`);
      byRate.push(await openStage(stack, db, rate));
      log(JSON.stringify(byRate.at(-1)));
    }
    log(`closed loop, ${closedConnections} connections for ${duration} s`);
    const saturation = await closedStage(stack, db);
    const output = { rates: byRate, saturation, machine };
    console.log(JSON.stringify(output, null, 2));
    log(`written ${writeResult('write', output)}`);
  }
} finally {
  await db.end();
  await stack.stop();
}
