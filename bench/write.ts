// `npm run bench:write`: how fast POST /v1/memories acknowledges, and whether
// anything acknowledged goes missing. autocannon, 50 connections, 30 s, against
// the API and worker processes on a real PostgreSQL + a Temporal dev server.
import autocannon from 'autocannon';
import pg from 'pg';
import { BENCH_KEY, parseArgs, startBenchStack, writeResult } from './support/benchStack.js';

const args = parseArgs();
const connections = Number(args.get('connections') ?? 50);
const duration = Number(args.get('duration') ?? 30);
const SENTENCES = [
  'Maya moved to Lisbon last spring and works at Northwind as a designer.',
  'The team decided to ship the Orion release on Friday.',
  'Carlos prefers short status updates by email.',
  'I finally tried the new ramen place near the office and loved it.',
  'Our Pro plan costs 30 dollars per month since January.',
];

const workers = Number(args.get('workers') ?? 1);
const stack = await startBenchStack({ database: 'mnemo_bench_write', workers, env: { MAX_PENDING_EPISODES: '1000000' } });
const acknowledged: string[] = [];
let counter = 0;
try {
  const result = await autocannon({
    url: `${stack.apiUrl}/v1/memories`,
    connections,
    duration,
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
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  // Acknowledged is not extracted: extraction follows at the workers' pace (starts are paced, the rest left to reconcile).
  const { rows: statusRows } = await db.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM episode WHERE id = ANY($1::uuid[]) GROUP BY status ORDER BY status',
    [acknowledged],
  );
  await db.end();
  const stored = statusRows.reduce((sum, r) => sum + r.n, 0);
  const output = {
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
    machine: { cores: (await import('node:os')).cpus().length },
  };
  console.log(JSON.stringify(output, null, 2));
  console.log(`written ${writeResult('write', output)}`);
} finally {
  await stack.stop();
}
