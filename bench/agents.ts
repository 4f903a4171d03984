// npm run bench:agents -- [--read-rate 8] [--write-rate 5] [--seconds 30] [--database-url URL] [--time-windows] [--out name]
//
// Agents' traffic on `npm start`, as a user runs it: a fresh DATA_DIR (the
// embedded PGlite, or --database-url for a PostgreSQL server), 200 episodes
// written and extracted, then an open loop (each request sent on its schedule,
// whether or not earlier ones answered) of writes and four read streams:
// context and search, per user and namespace-wide, `--read-rate` each per
// second. Reports reads answered, refused (503) and their p50/p95/p99 (overall;
// per minute of the loop, `reads.by_period`: a long run shows whether reads
// slow down as memory is written; per kind, `reads.by_shape`; the slowest reads and when they were sent,
// `reads.slowest`), write
// acknowledgement p95, and waits until every acknowledged write is extracted. `--time-windows`: every other question
// names a time too ("what happened at Acme last month"), as agents ask them.
// Writes bench/results/<out>.json (default agents-trial).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../core/embedded/ports.js';
import { BENCH_KEY, parseArgs, ROOT, writeResult } from './support/benchStack.js';
import { percentile, round2 } from './lib/stats.js';

const args = parseArgs();
const readRate = Number(args.get('read-rate') ?? 8);
const writeRate = Number(args.get('write-rate') ?? 5);
const seconds = Number(args.get('seconds') ?? 30);
const databaseUrl = args.get('database-url');
const timeWindows = args.has('time-windows');
const log = (m: string) => console.log(`[bench:agents] ${m}`);

const FIRST = ['Ana', 'Bruno', 'Chen', 'Dara', 'Emil', 'Farah', 'Goran', 'Hana', 'Ivo', 'Jun'];
const ORGS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli'];
const CITIES = ['Lisbon', 'Oslo', 'Kyoto', 'Lima', 'Accra'];
const NS = 'agents';

/** The four read streams: context and search, each per user and namespace-wide. */
type ReadShape = 'context_user' | 'context_namespace' | 'search_user' | 'search_namespace';

interface Answer {
  status: number;
  ms: number;
}

/** Answered reads `reads.slowest` lists, slowest first. */
const SLOWEST_LISTED = 25;
/** Seconds of the open loop each line of `reads.by_period` covers: whether reads slow down as memory is written. */
const PERIOD_S = 60;

let written = 0;
function episode() {
  written++;
  const n = written;
  return {
    namespace: NS,
    user_id: `u${n % 20}`,
    content: `${FIRST[n % 10]} ${n % 7} started working at ${ORGS[n % 5]} in ${CITIES[n % 5]} and met ${FIRST[(n + 3) % 10]} for lunch on day ${n}.`,
  };
}
const pick = (n: number) => Math.floor(Math.random() * n);
const question = () =>
  timeWindows && pick(2) ? `what happened at ${ORGS[pick(5)]} ${pick(2) ? 'last month' : 'this week'}` : `where does ${FIRST[pick(10)]} ${pick(7)} work`;

async function main() {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-bench-agents-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, MNEMO_API_KEY: BENCH_KEY, LOG_LEVEL: 'warn', TEMPORAL_UI_PORT: String(await freePort()) };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  // Detached: npm start in a session of its own, as a user runs it in a terminal of its own. Where the kernel shares
  // the CPU between sessions (autogroup), this script in npm start's session took its CPU from the API's share.
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  // Even when this script dies, npm start is stopped (cleanly: SIGTERM).
  process.once('exit', () => child.exitCode === null && child.kill('SIGTERM'));
  const url = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
  try {
    for (let waited = 0; ; waited += 500) {
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) break;
      if (waited > 300_000) throw new Error(`npm start not ready within 5 minutes:\n${output}`);
      await sleep(500);
    }
    const ids: string[] = [];
    const write = async (): Promise<Answer> => {
      const started = performance.now();
      try {
        const res = await fetch(`${url}/v1/memories`, { method: 'POST', headers, body: JSON.stringify(episode()) });
        const body = (await res.json()) as { id?: string };
        if (body.id) ids.push(body.id);
        return { status: res.status, ms: performance.now() - started };
      } catch (err) {
        // No answer at all (the connection refused or timed out): counted, not thrown out of the open loop.
        log(`write failed: ${(err as Error).message} (${((err as Error).cause as Error | undefined)?.message ?? ''})`);
        return { status: 0, ms: performance.now() - started };
      }
    };
    /** Waits until no acknowledged episode is pending or extracting; the episodes by status. */
    const waitExtracted = async (): Promise<Record<string, number>> => {
      for (;;) {
        // Ten at a time: hundreds at once would be refused by the read gate itself (a refusal counts as not yet done).
        const statuses: Array<{ status: string }> = [];
        for (let i = 0; i < ids.length; i += 10) {
          const page = ids.slice(i, i + 10).map((id) => fetch(`${url}/v1/memories/${id}`, { headers }).then(async (r) => (r.ok ? ((await r.json()) as { status: string }) : { status: 'pending' })));
          statuses.push(...(await Promise.all(page)));
        }
        if (!statuses.some((s) => s.status === 'pending' || s.status === 'extracting')) {
          return statuses.reduce<Record<string, number>>((counts, s) => ({ ...counts, [s.status]: (counts[s.status] ?? 0) + 1 }), {});
        }
        await sleep(2_000);
      }
    };
    log(`${databaseUrl ? 'PostgreSQL server' : 'embedded PGlite'}: writing and extracting 200 episodes`);
    for (let i = 0; i < 200; i += 10) await Promise.all(Array.from({ length: 10 }, write));
    await waitExtracted();

    const reads: Record<ReadShape, () => Promise<Response>> = {
      context_user: () => fetch(`${url}/v1/context?${new URLSearchParams({ namespace: NS, user_id: `u${pick(20)}`, query: question() })}`, { headers }),
      context_namespace: () => fetch(`${url}/v1/context?${new URLSearchParams({ namespace: NS, query: question() })}`, { headers }),
      search_user: () => fetch(`${url}/v1/search`, { method: 'POST', headers, body: JSON.stringify({ namespace: NS, user_id: `u${pick(20)}`, query: question(), k: 10 }) }),
      search_namespace: () => fetch(`${url}/v1/search`, { method: 'POST', headers, body: JSON.stringify({ namespace: NS, query: question(), k: 10 }) }),
    };
    const readAnswers: Array<Answer & { sentAt: number; shape: ReadShape }> = [];
    const writeAnswers: Answer[] = [];
    const inFlight: Array<Promise<void>> = [];
    const schedule = (perSecond: number, fire: () => Promise<void>) => {
      for (let i = 0; i < perSecond * seconds; i++) setTimeout(() => inFlight.push(fire()), (i * 1000) / perSecond);
    };
    log(`open loop for ${seconds} s: ${writeRate} writes/s, ${readRate}/s each of 4 read kinds`);
    const loopStarted = performance.now();
    schedule(writeRate, async () => void writeAnswers.push(await write()));
    for (const [shape, read] of Object.entries(reads) as Array<[ReadShape, () => Promise<Response>]>) {
      schedule(readRate, async () => {
        const started = performance.now();
        const status = await read().then(async (r) => (await r.text(), r.status), () => 0);
        readAnswers.push({ status, ms: performance.now() - started, sentAt: (started - loopStarted) / 1000, shape });
      });
    }
    await sleep(seconds * 1000 + 100);
    await Promise.all(inFlight);
    const answered = readAnswers.filter((a) => a.status === 200).map((a) => a.ms);
    const result = {
      database: databaseUrl ? 'server' : 'embedded',
      seconds,
      offered: { reads_per_second: 4 * readRate, writes_per_second: writeRate, time_window_questions: timeWindows },
      reads: {
        sent: readAnswers.length,
        answered: answered.length,
        refused_503: readAnswers.filter((a) => a.status === 503).length,
        other: readAnswers.filter((a) => a.status !== 200 && a.status !== 503).length,
        p50_ms: round2(percentile(answered, 50)),
        p95_ms: round2(percentile(answered, 95)),
        p99_ms: round2(percentile(answered, 99)),
        by_period: Array.from({ length: Math.ceil(seconds / PERIOD_S) }, (_, i) => {
          const inPeriod = readAnswers.filter((a) => a.status === 200 && Math.floor(a.sentAt / PERIOD_S) === i).map((a) => a.ms);
          return { from_s: i * PERIOD_S, answered: inPeriod.length, p50_ms: round2(percentile(inPeriod, 50)), p95_ms: round2(percentile(inPeriod, 95)) };
        }),
        // When the tail happens: the slowest answered reads with the second of the loop they were sent in (a start-up
        // burst shows as small `sent_s`).
        slowest: readAnswers
          .filter((a) => a.status === 200)
          .sort((a, b) => b.ms - a.ms)
          .slice(0, SLOWEST_LISTED)
          .map((a) => ({ sent_s: round2(a.sentAt), ms: round2(a.ms), shape: a.shape })),
        // Which of the four kinds makes the tail.
        by_shape: Object.fromEntries(
          Object.keys(reads).map((shape) => {
            const ofShape = readAnswers.filter((a) => a.shape === shape);
            const ms = ofShape.filter((a) => a.status === 200).map((a) => a.ms);
            const refused = ofShape.filter((a) => a.status === 503).length;
            return [shape, { answered: ms.length, refused_503: refused, p50_ms: round2(percentile(ms, 50)), p95_ms: round2(percentile(ms, 95)), p99_ms: round2(percentile(ms, 99)) }];
          }),
        ),
      },
      writes: {
        sent: writeAnswers.length,
        acknowledged: writeAnswers.filter((a) => a.status === 202).length,
        refused_503: writeAnswers.filter((a) => a.status === 503).length,
        failed: writeAnswers.filter((a) => a.status !== 202 && a.status !== 503).length,
        p95_ms: round2(percentile(writeAnswers.map((a) => a.ms), 95)),
      },
      episodes: { acknowledged: ids.length, by_status: {} as Record<string, number> },
    };
    result.episodes.by_status = await waitExtracted();
    console.log(JSON.stringify(result, null, 2));
    log(`wrote ${writeResult(args.get('out') ?? 'agents-trial', result)}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
