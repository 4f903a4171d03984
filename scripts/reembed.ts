// npx tsx scripts/reembed.ts [--namespace <id>] [--facts]
//
// Recomputes episode embeddings (and with --facts, fact embeddings) with the
// configured embedder, e.g. after changing EMBEDDING_PROVIDER or the way
// episodes are embedded. Episodes are embedded exactly as extraction does
// (episodeEmbeddingText with the preceding turns). Runs in batches; safe to
// interrupt and run again.
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { toVectorSql } from '../core/db/pool.js';
import { episodeEmbeddingText } from '../core/ingest/episodeEmbedding.js';

const BATCH = 64;
const args = process.argv.slice(2);
const namespace = args.includes('--namespace') ? args[args.indexOf('--namespace') + 1] : null;
const withFacts = args.includes('--facts');

const deps = buildDeps(loadConfig());
try {
  let episodes = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await deps.pool.query<{ id: string; speaker: string | null; content: string }>(
      `SELECT id, speaker, content FROM episode
        WHERE id > $1 AND ($2::text IS NULL OR namespace = $2) ORDER BY id LIMIT $3`,
      [after, namespace, BATCH],
    );
    if (!rows.length) break;
    const vectors = await deps.embedder.embed(rows.map(episodeEmbeddingText));
    await deps.pool.query(
      `UPDATE episode e SET embedding = u.v::vector, embedding_model = $3 FROM unnest($1::uuid[], $2::text[]) AS u(id, v) WHERE e.id = u.id`,
      [rows.map((r) => r.id), vectors.map(toVectorSql), deps.embedder.model],
    );
    episodes += rows.length;
    after = rows[rows.length - 1].id;
    if (episodes % (BATCH * 20) === 0) console.log(`[reembed] ${episodes} episodes`);
  }
  console.log(`[reembed] ${episodes} episodes done`);
  if (withFacts) {
    let facts = 0;
    after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const { rows } = await deps.pool.query<{ id: string; fact_text: string }>(
        `SELECT id, fact_text FROM fact WHERE id > $1 AND ($2::text IS NULL OR namespace = $2) ORDER BY id LIMIT $3`,
        [after, namespace, BATCH],
      );
      if (!rows.length) break;
      const vectors = await deps.embedder.embed(rows.map((r) => r.fact_text));
      await deps.pool.query(
        `UPDATE fact f SET embedding = u.v::vector, embedding_model = $3 FROM unnest($1::uuid[], $2::text[]) AS u(id, v) WHERE f.id = u.id`,
        [rows.map((r) => r.id), vectors.map(toVectorSql), deps.embedder.model],
      );
      facts += rows.length;
      after = rows[rows.length - 1].id;
    }
    console.log(`[reembed] ${facts} facts done`);
  }
} finally {
  await deps.close();
}
