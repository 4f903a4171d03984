// npm run bench:read -- --size 100000 [--users 300] [--duration 20] [--connections 8] [--reuse] [--api-processes 1]
//
// Fills one namespace with N generated episodes (several hundred users, their
// entities and facts) by bulk SQL (a million in about 20 minutes here: each
// distinct text embedded once, one model thread per core; the JSON gives the
// load's phases and the tables' and indexes' sizes), starts the API in its own process and drives
// GET /v1/context and POST /v1/search with autocannon; prints and writes
// bench/results/read.json (and read-<size>.json) plus the EXPLAIN ANALYZE of
// the slowest statement of the read path (read-explain-<size>.txt). Besides its
// synthetic per-user questions it sends agents' questions (`agent_queries`):
// names, two entities in one question, names that are no dictionary word, with
// and without `user_id`. Each phase reports the CPU milliseconds per request
// of the API process and the PostgreSQL server, read from /proc, and the share
// of the host's CPU the hypervisor gave to other guests meanwhile (steal).
//
// The closed-loop phases keep 8 requests in flight on two cores: their
// latency is the machine's saturation (by Little's law, p50 ≈ connections /
// throughput). `open_loop` shows what a caller meets below it: the three
// synthetic shapes again, each sent on a fixed schedule at `--open-share`
// (default 0.5) of the throughput its closed-loop phase just measured.
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { buildDeps, type BuiltDeps } from '../core/buildDeps.js';
import { loadConfig, type Config } from '../core/config/config.js';
import type { Queryable } from '../core/db/pool.js';
import { createEmbedder } from '../core/embedding/index.js';
import { buildContext } from '../core/retrieval/context.js';
import { resolveRecipe } from '../core/retrieval/recipes.js';
import { runSearch } from '../core/retrieval/search.js';
import { withReadClient } from '../core/retrieval/sql.js';
import { parseArgs, ROOT, startApiProcess, writeResult } from './support/benchStack.js';
import { agentQuery, benchQuery, generateCorpus, type CorpusUser } from './lib/corpus.js';
import { ensureBenchDatabase, readBenchDatabaseUrl } from './lib/db.js';
import { loadCorpus, type LoadReport } from './lib/bulkLoad.js';
import { relationSizes } from './lib/relationSizes.js';
import { openLoop } from './lib/openLoop.js';
import { Random } from './lib/random.js';
import { idleShare, readHostTicks, stealShare } from './lib/cpuSteal.js';
import { readMainThreadSched, schedShares, type ThreadSchedShares } from './lib/threadSched.js';
import { cpuBetween, ownCpuMs, postmasterPid, readCpu, type CpuTargets } from './lib/procCpu.js';
import { percentile, round2 } from './lib/stats.js';

const KEY = 'bench-admin-key-0123456789abcdef';
const args = parseArgs();
const size = Number(args.get('size') ?? 10_000);
const userCount = Number(args.get('users') ?? 300);
const duration = Number(args.get('duration') ?? 20);
const connections = Number(args.get('connections') ?? 8);
const reuse = args.has('reuse');
// The API served from this many processes (API_PROCESSES); recorded as `api_processes`.
const apiProcesses = Number(args.get('api-processes') ?? 1);
const openShare = Number(args.get('open-share') ?? 0.5);
if (!(openShare > 0 && openShare < 1)) throw new Error('--open-share must be between 0 and 1');
const log = (m: string) => console.log(`[bench:read] ${m}`);

// One database per size so each measurement sees only its own data (and --reuse can skip loading).
const databaseUrl = readBenchDatabaseUrl(size);
const namespace = 'bench';

interface Phase {
  p50: number;
  p95: number;
  rps: number;
  requests: number;
  errors: number;
  /** CPU milliseconds per answered request, per process (from /proc; null where a process is not on this machine), and the load client's. */
  cpuMsPerRequest: Record<string, number | null>;
  /** The share of the host's CPU time taken by other guests meanwhile (see lib/cpuSteal.ts): high, the phase measured a slower machine. */
  cpuStealShare: number | null;
  /** The share of the host's CPU time no task wanted meanwhile. */
  hostIdleShare: number | null;
  /** How the API's main thread spent the phase (null with several API processes: its pid is the primary's, which serves nothing). */
  apiMainThread: ThreadSchedShares | null;
}

/** What each phase reads besides latency: the processes' CPU, and the one API process's main thread (null with several). */
interface PhaseProbes {
  cpu: CpuTargets;
  apiMainThreadPid: number | null;
}

function drive(url: string, probes: PhaseProbes, build: (r: Random) => { method: 'GET' | 'POST'; path: string; body?: string }, seconds: number, seed: number): Promise<Phase> {
  const r = new Random(seed);
  const latencies: number[] = [];
  let errors = 0;
  const cpuBefore = readCpu(probes.cpu);
  const readMainThread = () => (probes.apiMainThreadPid === null ? null : readMainThreadSched(probes.apiMainThreadPid));
  const mainThreadBefore = readMainThread();
  // This process is the load's client (autocannon); its own time, not its tree's: the API is its child.
  const clientBefore = ownCpuMs();
  const ticksBefore = readHostTicks();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        requests: [
          {
            setupRequest: (req) => {
              const next = build(r);
              return { ...req, method: next.method, path: next.path, body: next.body };
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        const cpu = { ...cpuBetween(cpuBefore, readCpu(probes.cpu)), client: ownCpuMs() - clientBefore };
        const ticksAfter = readHostTicks();
        const perRequest = (ms: number | null) => (ms === null || !result.requests.total ? null : round2(ms / result.requests.total));
        resolve({
          p50: round2(percentile(latencies, 50)),
          p95: round2(percentile(latencies, 95)),
          rps: round2(result.requests.total / seconds),
          requests: result.requests.total,
          errors: errors + result.errors + result.timeouts,
          cpuMsPerRequest: Object.fromEntries(Object.entries(cpu).map(([name, ms]) => [name, perRequest(ms)])),
          cpuStealShare: stealShare(ticksBefore, ticksAfter),
          hostIdleShare: idleShare(ticksBefore, ticksAfter),
          apiMainThread: schedShares(mainThreadBefore, readMainThread()),
        });
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      latencies.push(ms);
      if (status >= 400) errors++;
    });
  });
}

interface OpenPhase {
  offered_rate: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  answered: number;
  errors: number;
}

/** `rate` requests a second of one shape, each sent when due whatever is still in flight; latency from the due time. */
async function driveOpen(url: string, build: (r: Random) => { method: 'GET' | 'POST'; path: string; body?: string }, rate: number, seconds: number, seed: number): Promise<OpenPhase> {
  const r = new Random(seed);
  const answers = await openLoop(url, KEY, [{ name: 'read', perSecond: rate, request: () => {
    const next = build(r);
    return { method: next.method, path: next.path, body: next.body === undefined ? undefined : JSON.parse(next.body) };
  } }], seconds, { bodies: false });
  const answered = answers.filter((a) => a.status >= 200 && a.status < 300).map((a) => a.latencyMs);
  return {
    offered_rate: rate,
    p50_ms: round2(percentile(answered, 50)),
    p95_ms: round2(percentile(answered, 95)),
    p99_ms: round2(percentile(answered, 99)),
    answered: answered.length,
    errors: answers.length - answered.length,
  };
}

/** Records every statement (and its time) the read path sends, to EXPLAIN the slowest. */
function recording(db: Queryable, out: Array<{ text: string; values: unknown[]; ms: number }>): Queryable {
  return {
    query: (async (text: string, values?: unknown[]) => {
      const t = performance.now();
      const result = await db.query(text, values);
      out.push({ text, values: values ?? [], ms: performance.now() - t });
      return result;
    }) as Queryable['query'],
  };
}

/**
 * Generates the corpus, loads it unless the database holds it already, and
 * returns only what the measurement needs: detached copies of the users its
 * questions are drawn from, and the counts. The corpus itself must not stay
 * alive in this process, which is also the load's client: at 100,000 episodes
 * its 95 MB heap cost about 100 ms of marking every 1.5-2 s, and the requests
 * in flight counted those pauses as latency (a scratch open loop of 170
 * contexts/s against a fresh API: p99 72 ms with it, 16 ms without; a
 * million episodes hold ten times the heap).
 */
async function prepareCorpus(deps: BuiltDeps, config: Config) {
  const corpus = generateCorpus(size, userCount);
  const { rows } = await deps.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM episode WHERE namespace = $1', [namespace]);
  let load: LoadReport | null = null;
  if (rows[0].n !== size) {
    log(`generating ${size} episodes for ${userCount} users into ${databaseUrl}`);
    // One more model thread per core, so the load's embedding uses them all (the API is not running yet).
    const extra = Array.from({ length: Math.max(availableParallelism() - 1, 0) }, () => createEmbedder(config));
    try {
      load = await loadCorpus(deps.pool, namespace, corpus, { ...deps, textEmbedders: [deps.embedder, ...extra] }, log);
    } finally {
      await Promise.all(extra.map((e) => e.close?.()));
    }
    log(`loaded in ${load.seconds.toFixed(1)} s: ${load.episodes} episodes, ${load.entities} entities, ${load.facts} facts`);
  } else log(`reusing ${size} episodes already in ${databaseUrl}`);
  const users: CorpusUser[] = structuredClone(corpus.users);
  return { users, factCount: corpus.facts.length, entityCount: corpus.entities.length, load };
}

async function main() {
  const startedAt = Date.now();
  await ensureBenchDatabase(databaseUrl, !reuse);
  const config = loadConfig({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: '127.0.0.1:7233', MNEMO_API_KEY: KEY, LOG_LEVEL: 'warn' } as NodeJS.ProcessEnv);
  const deps = buildDeps(config);
  const { users, factCount, entityCount, load } = await prepareCorpus(deps, config);
  const sizes = await relationSizes(deps.pool);

  // Reads need no Temporal: the address is never dialled.
  const api = await startApiProcess({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: '127.0.0.1:7233', MNEMO_API_KEY: KEY, API_PROCESSES: String(apiProcesses) });
  const url = api.url;
  const postgres = await postmasterPid(deps.pool);
  // The processes whose CPU each phase reports: the API and the PostgreSQL server (when local).
  const probes: PhaseProbes = { cpu: { api: [api.pid], ...(postgres === null ? {} : { postgres: [postgres] }) }, apiMainThreadPid: apiProcesses === 1 ? api.pid : null };
  const contextRequest = (r: Random) => {
    const user: CorpusUser = r.pick(users);
    const params = new URLSearchParams({ namespace, user_id: user.id, query: benchQuery(r, user), max_tokens: '1000' });
    return { method: 'GET' as const, path: `/v1/context?${params}` };
  };
  const searchRequest = (r: Random) => {
    const user = r.pick(users);
    return { method: 'POST' as const, path: '/v1/search', body: JSON.stringify({ namespace, user_id: user.id, query: benchQuery(r, user), k: 10 }) };
  };
  const searchNamespaceRequest = (r: Random) => {
    const user = r.pick(users);
    return { method: 'POST' as const, path: '/v1/search', body: JSON.stringify({ namespace, query: benchQuery(r, user), k: 10 }) };
  };

  // Agents' questions (names, two entities, names that are no dictionary word), with a user scope and without.
  const agentContextRequest = (withUser: boolean) => (r: Random) => {
    const user: CorpusUser = r.pick(users);
    const params = new URLSearchParams({ namespace, query: agentQuery(r, user), max_tokens: '1000', ...(withUser ? { user_id: user.id } : {}) });
    return { method: 'GET' as const, path: `/v1/context?${params}` };
  };
  const agentSearchRequest = (withUser: boolean) => (r: Random) => {
    const user = r.pick(users);
    return {
      method: 'POST' as const,
      path: '/v1/search',
      body: JSON.stringify({ namespace, query: agentQuery(r, user), k: 10, ...(withUser ? { user_id: user.id } : {}) }),
    };
  };

  log('warming up');
  await drive(url, probes, contextRequest, 3, 1);
  await drive(url, probes, searchRequest, 3, 2);
  log(`GET /v1/context: ${connections} connections, ${duration} s`);
  const context = await drive(url, probes, contextRequest, duration, 3);
  log(`POST /v1/search (per user): ${connections} connections, ${duration} s`);
  const search = await drive(url, probes, searchRequest, duration, 4);
  log(`POST /v1/search (whole namespace): ${connections} connections, ${Math.ceil(duration / 2)} s`);
  const searchNs = await drive(url, probes, searchNamespaceRequest, Math.ceil(duration / 2), 5);
  const agentSeconds = Math.ceil(duration / 2);
  log(`agents' questions: context and search, per user and namespace-wide, ${agentSeconds} s each`);
  const agent = {
    context_user: await drive(url, probes, agentContextRequest(true), agentSeconds, 7),
    context_namespace: await drive(url, probes, agentContextRequest(false), agentSeconds, 8),
    search_user: await drive(url, probes, agentSearchRequest(true), agentSeconds, 9),
    search_namespace: await drive(url, probes, agentSearchRequest(false), agentSeconds, 10),
  };

  // The same shapes below saturation, each at a share of the throughput its closed-loop phase measured.
  const openRate = (phase: Phase) => Math.max(1, round2(phase.rps * openShare));
  log(`open loop at ${openShare} of each shape's closed-loop throughput, ${duration} s each`);
  const open = {
    context: await driveOpen(url, contextRequest, openRate(context), duration, 11),
    search: await driveOpen(url, searchRequest, openRate(search), duration, 12),
    search_namespace: await driveOpen(url, searchNamespaceRequest, openRate(searchNs), duration, 13),
  };

  // The slowest single statement over a sample of requests, explained.
  const statements: Array<{ text: string; values: unknown[]; ms: number }> = [];
  const r = new Random(6);
  for (let i = 0; i < 40; i++) {
    const user = r.pick(users);
    const scope = { namespace, userId: i % 2 ? user.id : undefined, now: new Date(), includeForgotten: false };
    await withReadClient(deps.readPool, async (db) => {
      const rec = recording(db, statements);
      if (i % 4 === 0) await buildContext(rec, deps.embedder, { ...scope, userId: user.id }, { query: benchQuery(r, user), maxTokens: 1000, recipe: resolveRecipe('context') });
      else await runSearch(rec, deps.embedder, scope, { query: benchQuery(r, user), k: 10, kinds: ['episode', 'fact', 'entity'], recipe: resolveRecipe('default') });
    });
  }
  const slowest = statements.sort((a, b) => b.ms - a.ms)[0];
  const plan = await withReadClient(deps.readPool, (db) => db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${slowest.text}`, slowest.values));
  const explainFile = path.join(ROOT, `bench/results/read-explain-${size}.txt`);
  writeFileSync(
    explainFile,
    `-- slowest read-path statement over 40 sampled requests at size ${size}: ${slowest.ms.toFixed(2)} ms\n${slowest.text}\n-- params: ${JSON.stringify(
      slowest.values.map((v) => (typeof v === 'string' && v.startsWith('[') && v.length > 80 ? '<query vector>' : v)),
    )}\n\n${plan.rows
      .map((row) => row['QUERY PLAN'].replace(/'\[[-0-9.,e]+\]'::vector/g, "'<query vector>'::vector"))
      .join('\n')}\n`,
  );

  const result = {
    size,
    users: userCount,
    context_p50_ms: context.p50,
    context_p95_ms: context.p95,
    search_p50_ms: search.p50,
    search_p95_ms: search.p95,
    rps: round2((context.requests + search.requests) / (2 * duration)),
    context_rps: context.rps,
    search_rps: search.rps,
    search_namespace_p50_ms: searchNs.p50,
    search_namespace_p95_ms: searchNs.p95,
    agent_queries: Object.fromEntries(
      Object.entries(agent).map(([name, phase]) => [name, { p50_ms: phase.p50, p95_ms: phase.p95, rps: phase.rps, cpu_ms_per_request: phase.cpuMsPerRequest, cpu_steal_share: phase.cpuStealShare, host_idle_share: phase.hostIdleShare, api_main_thread: phase.apiMainThread }]),
    ),
    open_loop: { share_of_closed_loop_throughput: openShare, ...open },
    cpu_ms_per_request: { context: context.cpuMsPerRequest, search: search.cpuMsPerRequest, search_namespace: searchNs.cpuMsPerRequest },
    cpu_steal_share: { context: context.cpuStealShare, search: search.cpuStealShare, search_namespace: searchNs.cpuStealShare },
    host_idle_share: { context: context.hostIdleShare, search: search.hostIdleShare, search_namespace: searchNs.hostIdleShare },
    api_main_thread: { context: context.apiMainThread, search: search.apiMainThread, search_namespace: searchNs.apiMainThread },
    errors:
      context.errors + search.errors + searchNs.errors + Object.values(agent).reduce((n, phase) => n + phase.errors, 0) + Object.values(open).reduce((n, phase) => n + phase.errors, 0),
    connections,
    api_processes: apiProcesses,
    duration_s: duration,
    facts: factCount,
    entities: entityCount,
    load_seconds: round2(load?.seconds ?? 0),
    ...(load ? { load_phase_seconds: Object.fromEntries(Object.entries(load.phase_seconds).map(([k, v]) => [k, round2(v)])), distinct_texts: load.distinct_texts } : {}),
    relation_sizes_mb: sizes,
    slowest_statement_ms: round2(slowest.ms),
    explain_file: path.relative(ROOT, explainFile),
    total_seconds: round2((Date.now() - startedAt) / 1000),
  };
  console.log(JSON.stringify(result, null, 2));
  writeResult('read', result);
  writeResult(`read-${size}`, result);
  await api.stop();
  await deps.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
