// npx tsx scripts/reembed.ts [--namespace <id>] [--facts]
//
// Recomputes episode embeddings (and with --facts, fact embeddings) with the
// configured embedder, e.g. after changing EMBEDDING_PROVIDER or the way
// episodes are embedded. Episodes are embedded exactly as extraction does
// (episodeEmbeddingText). Runs in batches; safe to interrupt and run again.
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { toVectorSql } from '../core/db/pool.js';
import { episodeEmbeddingText } from '../core/ingest/episodeEmbedding.js';

const BATCH = 64;
const FIRST_ID = '00000000-0000-0000-0000-000000000000';
const args = process.argv.slice(2);
const namespace = args.includes('--namespace') ? args[args.indexOf('--namespace') + 1] : null;
const withFacts = args.includes('--facts');

const deps = buildDeps(loadConfig());

/** Walks `table` in id order, embedding the text `columns` give for each row. */
async function reembed<Row extends { id: string }>(table: 'episode' | 'fact', columns: string, textOf: (row: Row) => string): Promise<number> {
  let done = 0;
  let after = FIRST_ID;
  for (;;) {
    const { rows } = await deps.pool.query<Row>(
      `SELECT id, ${columns} FROM ${table} WHERE id > $1 AND ($2::text IS NULL OR namespace = $2) ORDER BY id LIMIT $3`,
      [after, namespace, BATCH],
    );
    if (!rows.length) return done;
    const vectors = await deps.embedder.embed(rows.map(textOf));
    await deps.pool.query(
      `UPDATE ${table} t SET embedding = u.v::vector, embedding_model = $3 FROM unnest($1::uuid[], $2::text[]) AS u(id, v) WHERE t.id = u.id`,
      [rows.map((r) => r.id), vectors.map(toVectorSql), deps.embedder.model],
    );
    done += rows.length;
    after = rows[rows.length - 1].id;
    if (done % (BATCH * 20) === 0) console.log(`[reembed] ${done} ${table} rows`);
  }
}

try {
  const episodes = await reembed<{ id: string; speaker: string | null; content: string }>('episode', 'speaker, content', episodeEmbeddingText);
  console.log(`[reembed] ${episodes} episodes done`);
  if (withFacts) console.log(`[reembed] ${await reembed<{ id: string; fact_text: string }>('fact', 'fact_text', (r) => r.fact_text)} facts done`);
} finally {
  await deps.close();
}
