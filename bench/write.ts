// `npm run bench:write -- [--rate R | --rates 200,500,1000] [--duration 30] [--connections 50] [--workers 1]`
//
// How fast POST /v1/memories acknowledges, and whether anything acknowledged
// goes missing, against the API and worker processes on a real PostgreSQL + a
// Temporal dev server, with the worker extracting meanwhile.
// - Open loop (`--rate`, `--rates`): a fixed offered rate (autocannon's
//   overallRate, with enough connections that requests leave on schedule), so
//   the latency is the one users meet at that load, not at saturation.
// - Closed loop (no rate given, and after the rates of the default run): 50
//   connections as fast as they are answered, which measures saturation.
// With one `--rate R` the JSON keeps the closed-loop fields and adds
// `offered_rate`; the default run writes `{rates: [...], saturation}`.
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { BENCH_KEY, parseArgs, startBenchStack, writeResult, type BenchStack } from './support/benchStack.js';

const args = parseArgs();
const closedConnections = Number(args.get('connections') ?? 50);
const duration = Number(args.get('duration') ?? 30);
const workers = Number(args.get('workers') ?? 1);
const singleRate = args.has('rate') ? Number(args.get('rate')) : null;
const rates = singleRate !== null ? [singleRate] : (args.get('rates') ?? '200,500,1000').split(',').map(Number);
if (rates.some((r) => !Number.isFinite(r) || r <= 0)) throw new Error('--rate/--rates need positive numbers');
const SENTENCES = [
  'Maya moved to Lisbon last spring and works at Northwind as a designer.',
  'The team decided to ship the Orion release on Friday.',
  'Carlos prefers short status updates by email.',
  'I finally tried the new ramen place near the office and loved it.',
  'Our Pro plan costs 30 dollars per month since January.',
];
const log = (m: string) => console.log(`[bench:write] ${m}`);

interface Stage {
  offered_rate?: number;
  connections: number;
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
}

let counter = 0;

/** One autocannon run; `rate` null is the closed loop. Every 202's id is checked against the database afterwards. */
async function stage(stack: BenchStack, db: pg.Client, rate: number | null): Promise<Stage> {
  const acknowledged: string[] = [];
  // Open loop: each connection carries one request at a time, so enough of them that a slow answer does not delay
  // the next send (rate × a generous 200 ms worst case, at least 20).
  const connections = rate === null ? closedConnections : Math.max(20, Math.ceil(rate * 0.2));
  const result = await autocannon({
    url: `${stack.apiUrl}/v1/memories`,
    connections,
    duration,
    ...(rate === null ? {} : { overallRate: rate }),
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => {
          const n = counter++;
          return {
            ...req,
            body: JSON.stringify({ content: `${SENTENCES[n % SENTENCES.length]} (note ${n})`, user_id: `user-${n % 300}`, agent_id: 'bench' }),
          };
        },
        onResponse: (status, body) => {
          if (status === 202) acknowledged.push((JSON.parse(body) as { id: string }).id);
        },
      },
    ],
  });
  // Acknowledged is not extracted: extraction follows at the workers' pace (starts are paced, the rest left to reconcile).
  const { rows: statusRows } = await db.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM episode WHERE id = ANY($1::uuid[]) GROUP BY status ORDER BY status',
    [acknowledged],
  );
  const stored = statusRows.reduce((sum, r) => sum + r.n, 0);
  return {
    ...(rate === null ? {} : { offered_rate: rate }),
    connections,
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
    lost: acknowledged.length - stored,
    statuses_at_end: Object.fromEntries(statusRows.map((r) => [r.status, r.n])),
  };
}

const stack = await startBenchStack({ database: 'mnemo_bench_write', workers, env: { MAX_PENDING_EPISODES: '1000000' } });
const db = new pg.Client({ connectionString: stack.databaseUrl });
await db.connect();
try {
  const machine = { cores: os.cpus().length };
  if (singleRate !== null) {
    const output = { ...(await stage(stack, db, singleRate)), machine };
    console.log(JSON.stringify(output, null, 2));
    log(`written ${writeResult('write', output)}`);
  } else {
    const byRate: Stage[] = [];
    for (const rate of rates) {
      log(`offered ${rate} writes/s for ${duration} s`);
      byRate.push(await stage(stack, db, rate));
      log(JSON.stringify(byRate.at(-1)));
    }
    log(`closed loop, ${closedConnections} connections for ${duration} s`);
    const saturation = await stage(stack, db, null);
    const output = { rates: byRate, saturation, machine };
    console.log(JSON.stringify(output, null, 2));
    log(`written ${writeResult('write', output)}`);
  }
} finally {
  await db.end();
  await stack.stop();
}
