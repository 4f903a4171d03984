import { toVectorSql, type Queryable } from '../db/pool.js';
import type { EmbeddingProvider } from '../extraction/types.js';
import { storeEpisodeVectors, type EmbeddableEpisode } from '../memories/episodeVectors.js';

export interface ReembedBatch {
  namespace: string;
  /** `episode:<id>` or `fact:<id>`: the last row of the previous batch; null to start with episodes. */
  after: string | null;
  limit: number;
  passages: boolean;
}

export interface ReembedResult {
  episodes: number;
  facts: number;
  lastKey: string | null;
  full: boolean;
}

type Table = 'episode' | 'fact';

function parseKey(after: string | null): { table: Table; id: string | null } {
  if (!after) return { table: 'episode', id: null };
  const [table, id] = after.split(':');
  return { table: table === 'fact' ? 'fact' : 'episode', id: id || null };
}

/** Rows embedded by another model than the configured one (rows never embedded are extraction's business). */
function outdated(table: Table, columns: string): string {
  return `SELECT id, ${columns} FROM ${table}
           WHERE namespace = $1 AND ($2::uuid IS NULL OR id > $2::uuid) AND forgotten_at IS NULL
             AND embedding_model IS NOT NULL AND embedding_model <> $3
           ORDER BY id LIMIT $4`;
}

/**
 * Re-embeds, in batches, the episodes (with their passages, exactly as
 * extraction does: storeEpisodeVectors) and then the facts of a namespace
 * whose vectors came from another embedding model (EMBEDDING_PROVIDER or
 * EMBEDDING_MODEL changed). Vectors of different models are not comparable,
 * so until then such rows are effectively missing from vector search.
 */
export async function reembedBatch(db: Queryable, embedder: EmbeddingProvider, batch: ReembedBatch): Promise<ReembedResult> {
  const at = parseKey(batch.after);
  let episodes = 0;
  if (at.table === 'episode') {
    const { rows } = await db.query<EmbeddableEpisode>(outdated('episode', 'speaker, content'), [batch.namespace, at.id, embedder.model, batch.limit]);
    if (rows.length) await storeEpisodeVectors(db, embedder, rows, { passages: batch.passages });
    if (rows.length >= batch.limit) return { episodes: rows.length, facts: 0, lastKey: `episode:${rows[rows.length - 1].id}`, full: true };
    episodes = rows.length; // episodes done: on to the facts in this same batch
  }
  const { rows } = await db.query<{ id: string; fact_text: string }>(outdated('fact', 'fact_text'), [batch.namespace, at.table === 'fact' ? at.id : null, embedder.model, batch.limit]);
  if (rows.length) {
    const vectors = await embedder.embed(rows.map((r) => r.fact_text));
    await db.query(
      `UPDATE fact t SET embedding = u.v::vector, embedding_model = $3, updated_at = now()
         FROM unnest($1::uuid[], $2::text[]) AS u(id, v) WHERE t.id = u.id`,
      [rows.map((r) => r.id), vectors.map(toVectorSql), embedder.model],
    );
  }
  const full = rows.length >= batch.limit;
  return { episodes, facts: rows.length, lastKey: full ? `fact:${rows[rows.length - 1].id}` : null, full };
}
