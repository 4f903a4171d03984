// npm run bench:dream -- [--facts 100000] [--entities 2000]
//
// One namespace bulk-loaded with SQL (entities with some near-duplicate names,
// facts of every decay class confirmed over the last ~400 days, embeddings and
// the HNSW index in place), then one full `dream` run through a real Temporal
// dev server and worker: decay, session expiry, duplicate proposals,
// re-embedding, report. Writes bench/results/dream.json:
// {facts, entities, seconds, facts_per_s, passes: {name: seconds}, ...}.
// Uses DATABASE_URL's server (database mnemo_bench_dream), else the local PostgreSQL.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { toVectorSql } from '../core/db/pool.js';
import { nameKey } from '../core/domain/canonical.js';
import { DREAM_WORKFLOW_TYPE, dreamWorkflowId, type DreamInput, type DreamReport } from '../core/dream/contracts.js';
import { findTemporalCli } from '../core/embedded/temporalCli.js';
import { Random } from './lib/random.js';
import { freshBenchDatabase, parseArgs, ROOT } from './support/benchStack.js';
import { startWorker } from '../workers/runtime.js';

const args = parseArgs();
const factCount = Number(args.get('facts') ?? 100_000);
const entityTarget = Number(args.get('entities') ?? 2_000);
const NS = 'bench-dream';
const NOW = new Date();
const log = (m: string) => console.log(`[bench:dream] ${m}`);

const FIRST = ['Ada', 'Bruno', 'Chen', 'Dara', 'Elif', 'Femi', 'Goran', 'Hana', 'Ivo', 'Jana', 'Kofi', 'Lena', 'Mateo', 'Nia', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sami', 'Tove'];
const LAST = ['Abara', 'Berg', 'Costa', 'Dietz', 'Eklund', 'Fraser', 'Gomez', 'Haddad', 'Ishii', 'Jensen', 'Kovac', 'Lindqvist', 'Moreau', 'Novak', 'Okafor', 'Petrov', 'Quist', 'Rahman', 'Sato', 'Tanaka', 'Ueda', 'Varga', 'Weber', 'Xu', 'Yilmaz', 'Zeller'];
const SYLLABLES = ['ac', 'bel', 'cor', 'dan', 'el', 'fin', 'gal', 'hex', 'ion', 'jun', 'kor', 'lum', 'mar', 'nex', 'or', 'pra', 'qua', 'ros', 'sol', 'tor', 'ul', 'ven', 'wex', 'zan'];
const SUFFIXES = ['Corp', 'Inc.', 'GmbH', 'Ltd', 'Capital', 'Group', 'Holdings AG'];

interface BenchEntity {
  id: string;
  type: string;
  name: string;
  aliases: string[];
}

/** People, organizations and places; about 3% of organizations have a suffixed twin, 1% of people share an alias with a namesake. */
function generateEntities(target: number): BenchEntity[] {
  const r = new Random(7);
  const entities: BenchEntity[] = [];
  const names = new Set<string>();
  const add = (type: string, name: string, aliases: string[] = []) => {
    if (names.has(`${type}:${name}`)) return false;
    names.add(`${type}:${name}`);
    entities.push({ id: randomUUID(), type, name, aliases });
    return true;
  };
  while (entities.length < target) {
    const roll = r.next();
    if (roll < 0.45) {
      const name = `${r.pick(FIRST)} ${r.pick(LAST)}${r.next() < 0.5 ? '' : `-${r.pick(LAST)}`}`;
      if (add('person', name) && r.next() < 0.01) add('person', `${name.split(' ')[0][0]}. ${name.split(' ').slice(1).join(' ')}`, [name]);
      if (entities.length > 0 && r.next() < 0.01) entities[entities.length - 1].aliases.push(name);
    } else if (roll < 0.85) {
      const base = (r.pick(SYLLABLES) + r.pick(SYLLABLES) + (r.next() < 0.5 ? r.pick(SYLLABLES) : '')).replace(/^./, (c) => c.toUpperCase());
      if (add('organization', base) && r.next() < 0.03) add('organization', `${base} ${r.pick(SUFFIXES)}`);
    } else {
      add('place', `${r.pick(SYLLABLES)}${r.pick(SYLLABLES)}ville`.replace(/^./, (c) => c.toUpperCase()));
    }
  }
  return entities.slice(0, target);
}

const databaseUrl = await freshBenchDatabase('mnemo_bench_dream');
const env = await TestWorkflowEnvironment.createLocal({
  server: { executable: { type: 'existing-path', path: findTemporalCli() }, ip: '127.0.0.1', ui: false },
});
const config = loadConfig({
  DATABASE_URL: databaseUrl,
  TEMPORAL_ADDRESS: env.connection.options.address,
  TEMPORAL_TASK_QUEUE: 'bench-dream',
  EMBEDDING_PROVIDER: 'hash',
  LOG_LEVEL: 'warn',
});
const deps = buildDeps(config);
try {
  const loadStarted = Date.now();
  await deps.pool.query('INSERT INTO namespace (id) VALUES ($1)', [NS]);
  // Built after the load, as bench/lib/bulkLoad.ts does.
  const { rows: hnsw } = await deps.pool.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname = 'fact_embedding_idx'`);
  await deps.pool.query('DROP INDEX fact_embedding_idx');

  const entities = generateEntities(entityTarget);
  const nameVectors = (await deps.nameEmbedder.embed(entities.map((e) => e.name))).map(toVectorSql);
  await deps.pool.query(
    `INSERT INTO entity (id, namespace, type, name, name_key, aliases, name_embedding, embedding_model, first_seen_at, last_seen_at)
     SELECT u.id, $1, u.type, u.name, u.name_key, COALESCE(string_to_array(u.aliases, chr(31)), '{}'), u.v::vector, $2, now() - interval '400 days', now()
       FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS u(id, type, name, name_key, aliases, v)`,
    [
      NS,
      deps.nameEmbedder.model,
      entities.map((e) => e.id),
      entities.map((e) => e.type),
      entities.map((e) => e.name),
      entities.map((e) => nameKey(e.name)),
      entities.map((e) => (e.aliases.length ? e.aliases.join('\u001f') : null)),
      nameVectors,
    ],
  );
  log(`entities: ${entities.length}`);

  // 1,000 distinct fact vectors, spread over the facts (the HNSW index sees real vectors; embedding 100k texts is not what is measured).
  const texts = Array.from({ length: 1000 }, (_, i) => `${entities[i % entities.length].name} likes topic number ${i}`);
  const vectors = (await deps.embedder.embed(texts)).map(toVectorSql);
  const client = await deps.pool.connect();
  try {
    await client.query('CREATE TEMP TABLE bench_vector (i int PRIMARY KEY, v vector(384))');
    await client.query('INSERT INTO bench_vector SELECT u.i - 1, u.v::vector FROM unnest($1::text[]) WITH ORDINALITY AS u(v, i)', [vectors]);
    await client.query(
      `INSERT INTO fact (id, namespace, subject_id, predicate, predicate_raw, family, value, fact_text, memory_kind, importance, confidence,
                         decay_class, last_confirmed_at, recorded_at, source, sensitivity, embedding, embedding_model)
       SELECT gen_random_uuid(), $1, (($2::uuid[])[1 + (g * 7919) % array_length($2::uuid[], 1)]), 'likes', 'likes', 'preferences',
              'topic ' || g, 'Likes topic number ' || g || ' of the benchmark.', 'semantic', 0.5, 0.5 + (g % 5) / 10.0,
              (ARRAY['permanent', 'slow_decay', 'fast_decay'])[1 + g % 3], $3::timestamptz - (g % 400) * interval '1 day',
              $3::timestamptz - (g % 400) * interval '1 day', 'bench:dream', 'internal', v.v, $4
         FROM generate_series(1, $5::int) g JOIN bench_vector v ON v.i = g % 1000`,
      [NS, entities.map((e) => e.id), NOW, deps.embedder.model, factCount],
    );
    log(`facts: ${factCount}; building the HNSW index`);
    await client.query(`SET maintenance_work_mem = '1GB'`);
    await client.query(hnsw[0].indexdef);
    await client.query('VACUUM ANALYZE fact');
    await client.query('VACUUM ANALYZE entity');
  } finally {
    client.release();
  }
  log(`loaded in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s`);

  const worker = await startWorker(deps, { ensureSchedules: false });
  const hot = async () =>
    (await deps.pool.query<{ upd: string; hot: string }>(`SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'fact'`)).rows[0];
  try {
    const runOnce = async (): Promise<{ seconds: number; report: DreamReport }> => {
      const runId = randomUUID();
      const started = performance.now();
      const handle = await deps.temporal.client.workflow.start(DREAM_WORKFLOW_TYPE, {
        workflowId: dreamWorkflowId(runId),
        taskQueue: deps.temporal.taskQueue,
        args: [{ runId, namespace: NS, now: NOW.toISOString() } satisfies DreamInput],
      });
      const report = await handle.result();
      return { seconds: (performance.now() - started) / 1000, report };
    };
    // A warm-up run over an empty namespace: the worker's first workflow task loads the workflow bundle,
    // which a long-running worker at 3 am has long done.
    await deps.pool.query(`INSERT INTO namespace (id) VALUES ('bench-dream-warmup') ON CONFLICT DO NOTHING`);
    const warmup = randomUUID();
    await (
      await deps.temporal.client.workflow.start(DREAM_WORKFLOW_TYPE, {
        workflowId: dreamWorkflowId(warmup),
        taskQueue: deps.temporal.taskQueue,
        args: [{ runId: warmup, namespace: 'bench-dream-warmup' } satisfies DreamInput],
      })
    ).result();
    const updatesBefore = await hot();
    const first = await runOnce();
    const updatesAfter = await hot();
    log(`first run: ${first.seconds.toFixed(2)} s`);
    const second = await runOnce();
    log(`second run: ${second.seconds.toFixed(2)} s`);

    const passes = Object.fromEntries(Object.entries(first.report.passes).map(([name, p]) => [name, p.seconds]));
    const updated = Number(updatesAfter.upd) - Number(updatesBefore.upd);
    const result = {
      facts: factCount,
      entities: entities.length,
      seconds: Math.round(first.seconds * 1000) / 1000,
      facts_per_s: Math.round(factCount / first.seconds),
      passes,
      report: first.report,
      // Share of the decay pass's row updates PostgreSQL made in place (HOT: no index touched).
      hot_update_share: updated ? Math.round(((Number(updatesAfter.hot) - Number(updatesBefore.hot)) / updated) * 1000) / 1000 : null,
      second_run: { seconds: Math.round(second.seconds * 1000) / 1000, passes: Object.fromEntries(Object.entries(second.report.passes).map(([name, p]) => [name, p.seconds])) },
      machine: { note: 'one full run through a Temporal dev server and one (warmed-up) worker; seconds from workflow start to result; then a second run over the same data' },
    };
    const file = path.join(ROOT, 'bench/results/dream.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`${JSON.stringify({ seconds: result.seconds, facts_per_s: result.facts_per_s, passes })} → ${file}`);
  } finally {
    await worker.shutdown();
  }
} finally {
  await deps.close();
  await env.teardown();
}
