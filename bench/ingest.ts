// `npm run bench:ingest -- --episodes 500 [--workers 1,2] [--provider heuristic|openai] [--latency 200]`
// `npm run bench:ingest -- --source json --episodes 100 [--triples 1000]`: the structured bulk path (bench/lib/jsonIngest.ts).
// End-to-end extraction throughput through Temporal (API + worker processes),
// the same stages called in-process for the overhead ratio, and scaling with a
// second worker. Episodes are REALTALK chat turns (read from ../shared).
// CPU milliseconds per extracted episode for each process (API, worker,
// Temporal server, PostgreSQL) come from /proc over the run, beside the same
// for the in-process run: `cpu_ms_per_episode` in ingest.json; and the part of
// the in-process figure that is the embedding alone (`embedding_cpu_ms_per_episode`).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../activities/index.js';
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { HeuristicProvider } from '../core/extraction/heuristic/index.js';
import { startEmbeddedServices } from '../core/embedded/stack.js';
import { freePort } from '../core/embedded/ports.js';
import { createExtractionProvider } from '../core/extraction/index.js';
import { createEmbedder } from '../core/embedding/index.js';
import { episodeEmbeddingText } from '../core/ingest/episodeEmbedding.js';
import { episodePassages } from '../core/ingest/passages.js';
import { createLogger } from '../core/logger.js';
import { startOpenAIStub } from '../test/support/openaiStub.js';
import { providerResponder } from '../test/support/openaiStubResponder.js';
import { BENCH_KEY, freshBenchDatabase, parseArgs, startBenchStack, writeResult } from './support/benchStack.js';
import { DEFAULT_DATASET, readTurns, type Turn } from './support/dataset.js';
import { runJsonIngest } from './lib/jsonIngest.js';
import { cpuBetween, ownCpuMs, postmasterPid, readCpu, treeCpuMs } from './lib/procCpu.js';

const args = parseArgs();
const source = args.get('source') ?? 'text';
if (source !== 'text' && source !== 'json') throw new Error(`--source must be text or json, not ${source}`);
if (source === 'json') {
  await runJsonIngest({ episodes: Number(args.get('episodes') ?? 100), triplesPerEpisode: Number(args.get('triples') ?? 1000), workers: Number(args.get('workers') ?? 1) });
  process.exit(0);
}
const episodes = Number(args.get('episodes') ?? 500);
const workerCounts = (args.get('workers') ?? '1,2').split(',').map(Number);
const provider = (args.get('provider') ?? 'heuristic') as 'heuristic' | 'openai';
const latencyMs = Number(args.get('latency') ?? 200);
const concurrency = Number(args.get('concurrency') ?? 16);
const turns = readTurns(args.get('dataset') ?? DEFAULT_DATASET).slice(0, episodes);
if (turns.length < episodes) throw new Error(`dataset has only ${turns.length} turns`);

const stub = provider === 'openai' ? await startOpenAIStub({ fixedLatencyMs: latencyMs, responder: providerResponder(new HeuristicProvider()) }) : null;
const providerEnv: Record<string, string> =
  provider === 'openai' ? { LLM_PROVIDER: 'openai', OPENAI_BASE_URL: stub!.url, OPENAI_API_KEY: 'stub', LLM_TIMEOUT_MS: '30000' } : { LLM_PROVIDER: 'heuristic' };

const memoryBody = (t: Turn, namespace: string) => ({
  content: t.text,
  namespace,
  user_id: t.speaker,
  speaker: t.speaker,
  occurred_at: t.occurredAt,
  metadata: { dia_id: t.diaId, conversation: t.conversation },
});

async function waitAllDone(db: pg.Client, namespace: string, total: number): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM episode WHERE namespace = $1 AND status IN ('extracted', 'failed', 'skipped')`,
      [namespace],
    );
    if (rows[0].n >= total) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const perEpisode = (ms: number | null) => (ms === null ? null : Number((ms / turns.length).toFixed(2)));

/** The seven stages called directly (no Temporal), `concurrency` episodes at a time: wall seconds and CPU per episode (this process + PostgreSQL). */
async function inProcessRun(): Promise<{ seconds: number; cpu_ms_per_episode: { node: number | null; postgres: number | null; total: number | null } }> {
  const url = await freshBenchDatabase('mnemo_bench_ingest_inproc');
  // A Temporal server only for what beginExtraction asks it once (whether the search attributes exist; without
  // an answer it waits 10 s per episode); the stages themselves run here, without workflows.
  const temporalOnly = loadConfig({ DATABASE_URL: url, DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'mnemo-inproc-')), LOG_LEVEL: 'warn', TEMPORAL_UI_PORT: String(await freePort()) });
  const temporal = await startEmbeddedServices(temporalOnly, createLogger(temporalOnly));
  // Configured like the services, which inherit this process's environment (EPISODE_PASSAGES, EMBEDDING_*, …).
  const config = loadConfig({ ...process.env, DATABASE_URL: url, TEMPORAL_ADDRESS: temporal.config.TEMPORAL_ADDRESS, LOG_LEVEL: 'warn', ...providerEnv });
  const deps = buildDeps(config);
  const activities = createActivities({ ...deps, extractor: createExtractionProvider(config, deps.logger) });
  await deps.pool.query(`INSERT INTO namespace (id) VALUES ('inproc') ON CONFLICT DO NOTHING`);
  const ids: string[] = [];
  for (const t of turns) {
    const id = crypto.randomUUID();
    ids.push(id);
    const b = memoryBody(t, 'inproc');
    await deps.pool.query(
      `INSERT INTO episode (id, namespace, user_id, speaker, content, metadata, occurred_at, workflow_id) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
      [id, b.namespace, b.user_id, b.speaker, b.content, JSON.stringify(b.metadata), b.occurred_at, `episode:${id}`],
    );
  }
  const postgresPid = await postmasterPid(deps.pool);
  const postgresBefore = postgresPid === null ? null : treeCpuMs(postgresPid);
  const nodeBefore = ownCpuMs();
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'inproc', runId: 'inproc' } });
    while (next < ids.length) {
      const episodeId = ids[next++];
      await env.run(async () => {
        const begun = await activities.beginExtraction({ episodeId });
        if (!begun.proceed) return;
        const { episode } = begun;
        const candidates = await activities.entityExtract({ episode });
        const entities = await activities.entityResolve({ episode, entities: candidates });
        const facts = await activities.factExtract({ episode, entities });
        const bound = await activities.factDedup({ episode, entities, facts });
        const timed = await activities.temporalResolve({ episode, facts: bound });
        const plan = await activities.contradiction({ episode, facts: timed });
        await activities.commitEpisode({ episode, entities, plan });
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  const node = ownCpuMs() - nodeBefore;
  const postgresAfter = postgresPid === null ? null : treeCpuMs(postgresPid);
  const postgres = postgresBefore === null || postgresAfter === null ? null : postgresAfter - postgresBefore;
  await deps.close();
  await temporal.stop();
  return {
    seconds,
    cpu_ms_per_episode: { node: perEpisode(node), postgres: perEpisode(postgres), total: perEpisode(postgres === null ? null : node + postgres) },
  };
}

/**
 * CPU milliseconds per episode of the embedding alone: the texts extraction embeds for these turns (each turn
 * with its speaker, and the sentences of longer ones, core/memories/episodeVectors.ts), one episode's texts per
 * call as beginExtraction sends them, on the configured embedder (the local model by default). Part of
 * `in_process`, which no change to the workflow can remove.
 */
async function embeddingOnly(): Promise<{ cpu_ms_per_episode: number; texts: number }> {
  const config = loadConfig({ ...process.env, DATABASE_URL: 'postgresql://unused@127.0.0.1/unused', TEMPORAL_ADDRESS: '127.0.0.1:1', LOG_LEVEL: 'warn' });
  const embedder = createEmbedder(config);
  try {
    const texts = turns.map((t) => {
      const turn = { speaker: t.speaker, content: t.text };
      return [episodeEmbeddingText(turn), ...(config.EPISODE_PASSAGES ? episodePassages(turn) : [])];
    });
    await embedder.embed(['warm up']);
    const before = ownCpuMs();
    for (const episodeTexts of texts) await embedder.embed(episodeTexts);
    return { cpu_ms_per_episode: Number(((ownCpuMs() - before) / texts.length).toFixed(2)), texts: texts.flat().length };
  } finally {
    await embedder.close?.();
  }
}

async function throughTemporal(workers: number) {
  const stack = await startBenchStack({ database: 'mnemo_bench_ingest', env: providerEnv, workers });
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    // Let the workers finish bundling and polling before the clock starts.
    await new Promise((r) => setTimeout(r, 8_000));
    // CPU of every process over the run, from /proc: the API (acknowledging and starting workflows), the
    // workers, the Temporal server and PostgreSQL (all its backends). Wall time on two shared cores cannot
    // tell their shares apart.
    const pids = stack.pids();
    const postgresPid = await postmasterPid(db);
    const targets = { api: [pids.api], worker: pids.workers, temporal: pids.temporal === null ? [] : [pids.temporal], postgres: postgresPid === null ? [] : [postgresPid] };
    const cpuBefore = readCpu(targets);
    const started = performance.now();
    for (let i = 0; i < turns.length; i += 100) {
      const res = await fetch(`${stack.apiUrl}/v1/memories/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ memories: turns.slice(i, i + 100).map((t) => memoryBody(t, 'bench')) }),
      });
      if (res.status !== 202) throw new Error(`batch → ${res.status} ${await res.text()}`);
    }
    await waitAllDone(db, 'bench', turns.length);
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuBetween(cpuBefore, readCpu(targets));
    const known = Object.values(cpu);
    const cpuTotal = known.some((v) => v === null) ? null : known.reduce<number>((a, v) => a + (v ?? 0), 0);
    const { rows: statusRows } = await db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM episode WHERE namespace = 'bench' GROUP BY status`,
    );
    const { rows: stageRows } = await db.query<{ stage: string; p50: number }>(
      `SELECT stage, percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50 FROM stage_run
        WHERE status = 'succeeded' GROUP BY stage`,
    );
    const { rows: factRows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM fact WHERE namespace = 'bench'`);
    return {
      workers,
      seconds: Number(seconds.toFixed(2)),
      episodes_per_s: Number((turns.length / seconds).toFixed(2)),
      statuses: Object.fromEntries(statusRows.map((r) => [r.status, r.n])),
      facts: factRows[0].n,
      cpu_ms_per_episode: {
        api: perEpisode(cpu.api),
        worker: perEpisode(cpu.worker),
        temporal: perEpisode(cpu.temporal),
        postgres: perEpisode(cpu.postgres),
        total: perEpisode(cpuTotal),
      },
      stage_p50_ms: Object.fromEntries(stageRows.map((r) => [r.stage, Number(Number(r.p50).toFixed(2))])),
    };
  } finally {
    await db.end();
    await stack.stop();
  }
}

try {
  const runs = [];
  for (const w of workerCounts) {
    const run = await throughTemporal(w);
    console.log(JSON.stringify(run));
    runs.push(run);
  }
  const inProcess = await inProcessRun();
  const embedding = await embeddingOnly();
  const one = runs.find((r) => r.workers === 1) ?? runs[0];
  const two = runs.find((r) => r.workers === 2);
  const output = {
    provider,
    ...(provider === 'openai' ? { model_latency_ms: latencyMs } : {}),
    episodes: turns.length,
    seconds: one.seconds,
    episodes_per_s: one.episodes_per_s,
    stage_p50_ms: one.stage_p50_ms,
    // CPU ms per extracted episode, one worker; in_process is the same seven stages without Temporal (node + postgres).
    cpu_ms_per_episode: { ...one.cpu_ms_per_episode, in_process: inProcess.cpu_ms_per_episode.total },
    in_process_cpu_ms_per_episode: inProcess.cpu_ms_per_episode,
    // Of in_process: embedding the episodes' texts alone (this process's CPU).
    embedding_cpu_ms_per_episode: embedding.cpu_ms_per_episode,
    embedded_texts: embedding.texts,
    in_process_seconds: Number(inProcess.seconds.toFixed(2)),
    in_process_concurrency: concurrency,
    overhead_ratio: Number((one.seconds / inProcess.seconds).toFixed(2)),
    second_worker_gain_pct: two ? Number(((two.episodes_per_s / one.episodes_per_s - 1) * 100).toFixed(1)) : null,
    runs,
    machine: { cores: os.cpus().length },
  };
  console.log(JSON.stringify(output, null, 2));
  console.log(`written ${writeResult(provider === 'openai' ? 'ingest-openai' : 'ingest', output)}`);
} finally {
  await stub?.close();
}
