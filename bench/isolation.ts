// npm run bench:isolation -- [--embedded] [--size 10000] [--users 300] [--rate 20] [--duration 30] [--capacity-episodes 300] [--write-rate R] [--out name]
//
// Do reads keep their latency while memory is written and extracted on the
// same machine? Fills a fresh database with N generated episodes (bulk SQL),
// starts the API and one worker in their own processes (as production runs
// them), measures the ingest capacity (episodes extracted per second from a
// burst), then offers the same open-loop read load (context and search, half
// of them scoped to a user, half namespace-wide; `--rate` requests/s) twice:
// with the worker idle, and while writes arrive at half the measured capacity
// and are extracted (`--write-rate` fixes that rate instead, so that runs of two
// configurations whose capacities differ offer the same load). Writes bench/results/isolation.json with both p95s and
// their ratio (target ≤ 1.5 on a real server). `--embedded` measures the
// embedded default instead: the corpus is loaded into a PGlite data folder,
// then `npm start`'s entry point runs PGlite, the Temporal dev server, the
// worker and the API in one process tree, as a user runs it (target ≤ 2);
// results go to isolation-embedded.json.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { MnemoClient } from '../client/index.js';
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { migrate } from '../core/db/migrate.js';
import { freePort } from '../core/embedded/ports.js';
import { startEmbeddedServices } from '../core/embedded/stack.js';
import { createLogger } from '../core/logger.js';
import { loadCorpus } from './lib/bulkLoad.js';
import { benchQuery, generateCorpus } from './lib/corpus.js';
import { openLoop, type LoadAnswer, type LoadStream } from './lib/openLoop.js';
import { Random } from './lib/random.js';
import { percentile, round2 } from './lib/stats.js';
import { BENCH_KEY, parseArgs, ROOT, startBenchStack, writeResult } from './support/benchStack.js';

const args = parseArgs();
const size = Number(args.get('size') ?? 10_000);
const userCount = Number(args.get('users') ?? 300);
const readRate = Number(args.get('rate') ?? 20);
const duration = Number(args.get('duration') ?? 30);
const capacityEpisodes = Number(args.get('capacity-episodes') ?? 300);
const fixedWriteRate = args.has('write-rate') ? Number(args.get('write-rate')) : undefined;
if (fixedWriteRate !== undefined && !(fixedWriteRate > 0)) throw new Error('--write-rate must be a positive number');
const embedded = args.has('embedded');
// --out names the result file (e.g. one per run when measuring the spread); default isolation / isolation-embedded.
const outName = args.get('out') ?? (embedded ? 'isolation-embedded' : 'isolation');
const namespace = 'bench';
const log = (m: string) => console.log(`[bench:isolation] ${m}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function countByStatus(db: pg.Pool, ids: string[]): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM episode WHERE id = ANY($1::uuid[]) GROUP BY status', [ids]);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

async function waitDone(db: pg.Pool, ids: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await countByStatus(db, ids);
    if ((counts.extracted ?? 0) + (counts.failed ?? 0) + (counts.skipped ?? 0) >= ids.length) return;
    if (Date.now() > deadline) throw new Error(`extraction did not finish in ${timeoutMs} ms: ${JSON.stringify(counts)}`);
    await sleep(200);
  }
}

function summary(answers: LoadAnswer[], stream?: string) {
  const mine = answers.filter((a) => !stream || a.stream === stream);
  const answered = mine.filter((a) => a.status === 200).map((a) => a.latencyMs);
  return {
    p50_ms: round2(percentile(answered, 50)),
    p95_ms: round2(percentile(answered, 95)),
    p99_ms: round2(percentile(answered, 99)),
    answered: answered.length,
    refused: mine.filter((a) => a.status === 503).length,
    errors: mine.filter((a) => a.status !== 200 && a.status !== 503).length,
  };
}

interface IsolationStack {
  apiUrl: string;
  databaseUrl: string;
  loadSeconds: number;
  stop(): Promise<void>;
}

/** A real PostgreSQL: a fresh database loaded by bulk SQL, then the API and one worker in processes of their own. */
async function startServerStack(corpus: ReturnType<typeof generateCorpus>): Promise<IsolationStack> {
  const stack = await startBenchStack({ database: 'mnemo_bench_isolation' });
  const deps = buildDeps(loadConfig({ DATABASE_URL: stack.databaseUrl, TEMPORAL_ADDRESS: stack.temporalAddress, MNEMO_API_KEY: BENCH_KEY, LOG_LEVEL: 'warn' } as NodeJS.ProcessEnv));
  log(`loading ${size} episodes for ${userCount} users`);
  const loaded = await loadCorpus(deps.pool, namespace, corpus, deps, log);
  log(`loaded in ${loaded.seconds.toFixed(1)} s`);
  await deps.close();
  await stack.startWorkers(1);
  return { apiUrl: stack.apiUrl, databaseUrl: stack.databaseUrl, loadSeconds: loaded.seconds, stop: () => stack.stop() };
}

/**
 * The embedded default as a user runs it: the corpus goes into a PGlite data folder first (PGlite alone, in
 * this process), then `scripts/start.ts` (what `npm start` runs) serves that folder with the worker and the API
 * in one process tree; its banner names the PGlite URL this benchmark counts episodes through.
 */
async function startEmbeddedDefault(corpus: ReturnType<typeof generateCorpus>): Promise<IsolationStack> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-isolation-'));
  // TEMPORAL_ADDRESS set: the pre-load needs PGlite only.
  const preload = loadConfig({ DATA_DIR: dataDir, TEMPORAL_ADDRESS: '127.0.0.1:1', LOG_LEVEL: 'warn' } as NodeJS.ProcessEnv);
  const services = await startEmbeddedServices(preload, createLogger(preload));
  let loadSeconds = 0;
  try {
    await migrate(services.config.DATABASE_URL);
    const deps = buildDeps(services.config);
    log(`loading ${size} episodes for ${userCount} users into PGlite (${dataDir})`);
    const loaded = await loadCorpus(deps.pool, namespace, corpus, deps, log);
    loadSeconds = loaded.seconds;
    log(`loaded in ${loaded.seconds.toFixed(1)} s`);
    await deps.close();
  } finally {
    await services.stop();
  }
  const port = await freePort();
  // Without DATABASE_URL and TEMPORAL_ADDRESS, start.ts runs the embedded services itself.
  const { DATABASE_URL: _database, TEMPORAL_ADDRESS: _temporal, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    NODE_OPTIONS: '',
    DATA_DIR: dataDir,
    PORT: String(port),
    TEMPORAL_UI_PORT: String(await freePort()),
    MNEMO_API_KEY: BENCH_KEY,
    LOG_LEVEL: 'warn',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/start.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => child.exitCode === null && child.kill('SIGKILL'));
  const databaseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`npm start did not come up in 180 s:\n${out}`)), 180_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /Postgres:\s+(postgres(?:ql)?:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${out}`)));
  });
  return {
    apiUrl: `http://127.0.0.1:${port}`,
    databaseUrl,
    loadSeconds,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGINT');
      }),
  };
}

async function main() {
  const startedAt = Date.now();
  const corpus = generateCorpus(size, userCount);
  const stack = embedded ? await startEmbeddedDefault(corpus) : await startServerStack(corpus);
  try {
    const deps = { pool: new pg.Pool({ connectionString: stack.databaseUrl, max: 2 }) };

    // Writes: other turns of the same users' kind, never repeated.
    const writes = generateCorpus(capacityEpisodes + Math.ceil(duration * 200), 50, 7).episodes;
    const writeBody = (n: number) => ({ namespace, user_id: `writer-${n % 50}`, content: writes[n % writes.length].content });
    const client = new MnemoClient({ baseUrl: stack.apiUrl, apiKey: BENCH_KEY, maxRetries: 100 });

    log(`ingest capacity: a burst of ${capacityEpisodes} episodes`);
    const burstStart = performance.now();
    const burstIds: string[] = [];
    for (let i = 0; i < capacityEpisodes; i += 100) {
      const batch = Array.from({ length: Math.min(100, capacityEpisodes - i) }, (_, k) => writeBody(i + k));
      burstIds.push(...(await client.memories.batch(batch)).memories.map((m) => m.id));
    }
    await waitDone(deps.pool, burstIds, 600_000);
    const capacity = capacityEpisodes / ((performance.now() - burstStart) / 1000);
    const writeRate = fixedWriteRate ?? capacity / 2;
    log(`capacity ${capacity.toFixed(1)} episodes/s → writes at ${writeRate.toFixed(1)}/s`);

    const r = new Random(11);
    const queries = Array.from({ length: 2_000 }, (_, n) => {
      const user = r.pick(corpus.users);
      return { user: n % 2 === 0 ? user.id : undefined, query: benchQuery(r, user) };
    });
    const reads: LoadStream[] = [
      {
        name: 'context',
        perSecond: readRate / 2,
        request: (n) => {
          const q = queries[n % queries.length];
          const params = new URLSearchParams({ namespace, query: q.query, max_tokens: '1000', ...(q.user ? { user_id: q.user } : {}) });
          return { method: 'GET', path: `/v1/context?${params}` };
        },
      },
      {
        name: 'search',
        perSecond: readRate / 2,
        request: (n) => {
          const q = queries[(n + 1000) % queries.length];
          return { method: 'POST', path: '/v1/search', body: { namespace, query: q.query, k: 10, ...(q.user ? { user_id: q.user } : {}) } };
        },
      },
    ];
    let written = capacityEpisodes;
    const writeStream: LoadStream = {
      name: 'write',
      perSecond: writeRate,
      request: () => ({ method: 'POST', path: '/v1/memories', body: writeBody(written++) }),
    };

    log('warming up');
    await openLoop(stack.apiUrl, BENCH_KEY, reads, 5);
    log(`reads at ${readRate}/s for ${duration} s, worker idle`);
    const idle = await openLoop(stack.apiUrl, BENCH_KEY, reads, duration);
    log(`the same reads while writes arrive at ${writeRate.toFixed(1)}/s and are extracted`);
    const busy = await openLoop(stack.apiUrl, BENCH_KEY, [...reads, writeStream], duration);
    const acknowledged = busy.filter((a) => a.stream === 'write' && a.status === 202).map((a) => (a.body as { id: string }).id);
    const extractedMeanwhile = (await countByStatus(deps.pool, acknowledged)).extracted ?? 0;

    const idleAll = summary(idle);
    const busyAll = summary(busy.filter((a) => a.stream !== 'write'));
    const result = {
      database: embedded ? 'embedded (PGlite, npm start)' : 'postgresql',
      loaded_in_s: round2(stack.loadSeconds),
      size,
      users: userCount,
      read_rate_per_s: readRate,
      duration_s: duration,
      ingest_capacity_eps: round2(capacity),
      write_rate_per_s: round2(writeRate),
      idle: { ...idleAll, context: summary(idle, 'context'), search: summary(idle, 'search') },
      loaded: {
        ...busyAll,
        context: summary(busy, 'context'),
        search: summary(busy, 'search'),
        writes_acknowledged: acknowledged.length,
        writes_refused: busy.filter((a) => a.stream === 'write' && a.status === 503).length,
        writes_extracted_during_phase: extractedMeanwhile,
      },
      ratio_p95: round2(busyAll.p95_ms / idleAll.p95_ms),
      ratio_context_p95: round2(summary(busy, 'context').p95_ms / summary(idle, 'context').p95_ms),
      ratio_search_p95: round2(summary(busy, 'search').p95_ms / summary(idle, 'search').p95_ms),
      total_seconds: round2((Date.now() - startedAt) / 1000),
    };
    console.log(JSON.stringify(result, null, 2));
    writeResult(outName, result);
    await deps.pool.end();
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
