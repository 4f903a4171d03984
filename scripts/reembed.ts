// npx tsx scripts/reembed.ts [--namespace <id>] [--facts]
//
// Recomputes episode embeddings and their passages' (and with --facts, fact
// embeddings) with the configured embedder, e.g. after changing
// EMBEDDING_PROVIDER or the way episodes are embedded. Episodes are embedded
// exactly as extraction does (episodeEmbeddingText, episodePassages). Runs in
// batches; safe to interrupt and run again.
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { toVectorSql } from '../core/db/pool.js';
import { storeEpisodeVectors, type EmbeddableEpisode } from '../core/memories/episodeVectors.js';

const BATCH = 64;
const FIRST_ID = '00000000-0000-0000-0000-000000000000';
const args = process.argv.slice(2);
const namespace = args.includes('--namespace') ? args[args.indexOf('--namespace') + 1] : null;
const withFacts = args.includes('--facts');

const deps = buildDeps(loadConfig());

/** Walks `table` in id order, `columns` of `BATCH` rows at a time, handing each batch to `store`. */
async function walk<Row extends { id: string }>(table: 'episode' | 'fact', columns: string, store: (rows: Row[]) => Promise<void>): Promise<number> {
  let done = 0;
  let after = FIRST_ID;
  for (;;) {
    const { rows } = await deps.pool.query<Row>(
      `SELECT id, ${columns} FROM ${table} WHERE id > $1 AND ($2::text IS NULL OR namespace = $2) ORDER BY id LIMIT $3`,
      [after, namespace, BATCH],
    );
    if (!rows.length) return done;
    await store(rows);
    done += rows.length;
    after = rows[rows.length - 1].id;
    if (done % (BATCH * 20) === 0) console.log(`[reembed] ${done} ${table} rows`);
  }
}

async function storeFacts(rows: Array<{ id: string; fact_text: string }>): Promise<void> {
  const vectors = await deps.embedder.embed(rows.map((r) => r.fact_text));
  await deps.pool.query(
    `UPDATE fact t SET embedding = u.v::vector, embedding_model = $3 FROM unnest($1::uuid[], $2::text[]) AS u(id, v) WHERE t.id = u.id`,
    [rows.map((r) => r.id), vectors.map(toVectorSql), deps.embedder.model],
  );
}

try {
  console.log(`[reembed] ${await walk<EmbeddableEpisode>('episode', 'speaker, content', (rows) => storeEpisodeVectors(deps.pool, deps.embedder, rows, { passages: deps.config.EPISODE_PASSAGES }))} episodes done`);
  // Fresh statistics at once rather than at autovacuum's next round: the read path looks passages up per episode.
  await deps.pool.query('ANALYZE episode_passage');
  if (withFacts) console.log(`[reembed] ${await walk('fact', 'fact_text', storeFacts)} facts done`);
} finally {
  await deps.close();
}
