// npm run bench:recall -- [--dataset <file-or-folder>] [--k 5,10,25,50] [--rankings-out <file>]
//                         [--recipes default,keyword_only,hybrid,vector_only] [--kinds episodes,facts] [--reuse] [--conversations N]
//
// Retrieval-only evaluation on long conversations (REALTALK folder layout or
// LoCoMo's single-array file): every turn is written through POST
// /v1/memories/batch to an in-process API with a worker (real Temporal dev
// server, real PostgreSQL from DATABASE_URL), one namespace per conversation;
// once extraction has finished, every question goes through POST /v1/search
// for each recipe, and recall@k of the evidence dia_ids is scored per category
// and overall, with what the searches cost (`read_cost`: latency at 4 at a
// time and PostgreSQL CPU per search) and the GIN pending lists they met. The
// first recipe's rankings go to --rankings-out. Results:
// bench/results/recall.json. --reuse keeps an already ingested database.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../api/app.js';
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { freePort } from '../core/embedded/ports.js';
import { startEmbeddedServices } from '../core/embedded/stack.js';
import { createLogger } from '../core/logger.js';
import { RECIPES } from '../core/retrieval/recipes.js';
import { refreshTermStats } from '../core/retrieval/termStats.js';
import type { SearchResult } from '../core/retrieval/types.js';
import { startWorker } from '../workers/runtime.js';
import { parseArgs, writeResult } from './support/benchStack.js';
import { DEFAULT_BENCH_DATABASE_URL, ensureBenchDatabase, siblingDatabaseUrl } from './lib/db.js';
import { loadRecallDataset } from './lib/recallData.js';
import { coverage, evaluateRecall, type RecallSummary } from './lib/recallEval.js';
import { findIngested, ingestConversations, type Ingested } from './lib/recallIngest.js';
import { cpuBetween, postmasterPid, readCpu, type CpuTargets } from './lib/procCpu.js';
import { percentile, round2 } from './lib/stats.js';
import { ginPendingPages } from './lib/ginPending.js';

const KEY = 'bench-admin-key-0123456789abcdef';
const DEFAULT_DATASET = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/datasets/realtalk');
const args = parseArgs();
const dataset = path.resolve(args.get('dataset') ?? DEFAULT_DATASET);
const ks = (args.get('k') ?? '5,10,25,50').split(',').map(Number).filter((k) => Number.isInteger(k) && k > 0);
const recipes = (args.get('recipes') ?? 'default,keyword_only,hybrid,vector_only').split(',').map((r) => r.trim()).filter(Boolean);
const kinds = (args.get('kinds') ?? 'episodes,facts').split(',');
const rankingsOut = args.get('rankings-out');
const reuse = args.has('reuse');
const limitConversations = args.has('conversations') ? Number(args.get('conversations')) : undefined;
const log = (m: string) => console.log(`[bench:recall] ${m}`);

async function main() {
  for (const r of recipes) if (!(r in RECIPES)) throw new Error(`unknown recipe ${r}; one of ${Object.keys(RECIPES).join(', ')}`);
  if (!ks.length) throw new Error('--k needs positive integers, e.g. 5,10,25,50');
  const conversations = loadRecallDataset(dataset).slice(0, limitConversations);
  const cover = coverage(conversations);
  log(`${conversations.length} conversations, ${conversations.reduce((s, c) => s + c.turns.length, 0)} turns, ${cover.questions} questions from ${dataset}`);

  const databaseUrl = siblingDatabaseUrl(process.env.DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL, 'mnemo_bench_recall');
  await ensureBenchDatabase(databaseUrl, !reuse);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-recall-'));
  const baseConfig = loadConfig({
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    DATA_DIR: dataDir,
    MNEMO_API_KEY: KEY,
    LOG_LEVEL: 'warn',
    TEMPORAL_UI_PORT: String(await freePort()),
  } as NodeJS.ProcessEnv);
  const logger = createLogger(baseConfig);
  const probe = buildDeps({ ...baseConfig, TEMPORAL_ADDRESS: baseConfig.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' }, { logger });
  let ingested: Ingested | null = reuse ? await findIngested(probe.pool, conversations) : null;
  await probe.close();

  // Temporal (a dev server unless TEMPORAL_ADDRESS is set) and a worker are only needed to ingest.
  const services = ingested ? null : await startEmbeddedServices(baseConfig, logger);
  const config = services?.config ?? { ...baseConfig, TEMPORAL_ADDRESS: baseConfig.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' };
  const deps = buildDeps(config, { logger });
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
  });
  const api = { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, key: KEY };
  try {
    if (!ingested) {
      const worker = await startWorker(deps);
      try {
        ingested = await ingestConversations(api, deps.pool, conversations, log);
      } finally {
        await worker.shutdown();
      }
    } else log(`reusing ${ingested.turnOf.size} ingested turns (${ingested.failed} failed extraction)`);
    // Fresh statistics, as autovacuum and the search-stats schedule would keep them in production: the keyword signal weighs terms by them.
    await deps.pool.query('ANALYZE episode; ANALYZE fact; ANALYZE entity');
    await refreshTermStats(deps.pool);
    const { rows: graph } = await deps.pool.query<{ entities: number; facts: number }>(
      `SELECT (SELECT count(*)::int FROM entity WHERE namespace LIKE 'recall.%') AS entities, (SELECT count(*)::int FROM fact WHERE namespace LIKE 'recall.%') AS facts`,
    );

    // What the searches meet: GIN pending lists are read in full by every search of their index (see migration
    // 20261129000000_gin_without_pending_list), and after an ingest they hold what autovacuum has not merged yet.
    const pendingPages = await ginPendingPages(deps.pool);
    const postgres = await postmasterPid(deps.pool);
    const cpuTargets: CpuTargets = postgres === null ? {} : { postgres: [postgres] };
    const results: Record<string, RecallSummary> = {};
    const readCost: Record<string, { searches: number; p50_ms: number; p95_ms: number; mean_ms: number; postgres_cpu_ms_per_search: number | null }> = {};
    for (const [i, recipe] of recipes.entries()) {
      const latencies: number[] = [];
      const search = async (namespace: string, query: string): Promise<SearchResult[]> => {
        const sent = performance.now();
        const res = await fetch(`${api.baseUrl}/v1/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ namespace, query, k: 100, kinds, recipe }),
        });
        if (!res.ok) throw new Error(`search → ${res.status}: ${await res.text()}`);
        const { results: found } = (await res.json()) as { results: SearchResult[] };
        latencies.push(performance.now() - sent);
        return found;
      };
      const started = Date.now();
      const cpuBefore = readCpu(cpuTargets);
      const { summary, rankings } = await evaluateRecall(conversations, ingested, search, ks);
      const postgresMs = cpuBetween(cpuBefore, readCpu(cpuTargets)).postgres ?? null;
      results[recipe] = summary;
      readCost[recipe] = {
        searches: latencies.length,
        p50_ms: round2(percentile(latencies, 50)),
        p95_ms: round2(percentile(latencies, 95)),
        mean_ms: round2(latencies.reduce((a, b) => a + b, 0) / Math.max(latencies.length, 1)),
        postgres_cpu_ms_per_search: postgresMs === null || !latencies.length ? null : round2(postgresMs / latencies.length),
      };
      log(`${recipe}: ${JSON.stringify(summary.overall)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      if (i === 0 && rankingsOut) {
        mkdirSync(path.dirname(path.resolve(rankingsOut)), { recursive: true });
        writeFileSync(path.resolve(rankingsOut), `${JSON.stringify(rankings)}\n`);
        log(`rankings of ${recipe} → ${rankingsOut}`);
      }
    }

    const [main, baseline] = [results[recipes[0]], results.keyword_only];
    const result = {
      dataset: path.basename(dataset),
      conversations: conversations.length,
      turns: ingested.turnOf.size,
      ...cover,
      scored_questions: main.questions,
      extraction_failed: ingested.failed,
      ingest_seconds: Math.round(ingested.seconds),
      entities: graph[0].entities,
      facts: graph[0].facts,
      kinds,
      k: ks,
      recipes: Object.fromEntries(recipes.map((r) => [r, { weights: RECIPES[r].weights, ...results[r], read_cost: readCost[r] }])),
      gin_pending_pages: pendingPages,
      ...(baseline && recipes[0] !== 'keyword_only'
        ? { [`${recipes[0]}_minus_keyword_only_points`]: Object.fromEntries(ks.map((k) => [String(k), Math.round((main.overall[k] - baseline.overall[k]) * 1000) / 10])) }
        : {}),
    };
    printTable(results, ks);
    console.log(JSON.stringify(result, null, 2));
    writeResult('recall', result);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await deps.close();
    await services?.stop();
  }
}

function printTable(results: Record<string, RecallSummary>, k: number[]) {
  const header = ['recipe', 'category', 'n', ...k.map((x) => `R@${x}`)];
  const rows: string[][] = [];
  for (const [recipe, s] of Object.entries(results)) {
    rows.push([recipe, 'overall', String(s.questions), ...k.map((x) => (s.overall[x] * 100).toFixed(1))]);
    for (const [cat, c] of Object.entries(s.by_category)) rows.push([recipe, cat, String(c.questions), ...k.map((x) => (c.recall[x] * 100).toFixed(1))]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [header, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
