import { toVectorSql, type Queryable } from '../db/pool.js';
import type { EmbeddingProvider } from '../extraction/types.js';
import { episodeEmbeddingText, type Turn } from '../ingest/episodeEmbedding.js';
import { episodePassages } from '../ingest/passages.js';

export interface EmbeddableEpisode extends Turn {
  id: string;
}

/**
 * Episodes' vectors and their passages' in one statement: all or none. A
 * re-run replaces the passages; ordinals no longer produced are removed.
 * Passages take their namespace from the episode row, and the row records
 * whether it has any (`has_passages`: narrow searches probe only those).
 */
const STORE = `WITH own AS (
    UPDATE episode e SET embedding = u.v::vector, embedding_model = $3, has_passages = $4::uuid[] @> ARRAY[u.id]
      FROM unnest($1::uuid[], $2::text[]) AS u(id, v) WHERE e.id = u.id RETURNING e.id, e.namespace),
  passage AS (SELECT * FROM unnest($4::uuid[], $5::int[], $6::text[]) AS p(episode_id, ordinal, v)),
  stale AS (DELETE FROM episode_passage ps WHERE ps.episode_id = ANY($1::uuid[])
    AND NOT EXISTS (SELECT 1 FROM passage p WHERE p.episode_id = ps.episode_id AND p.ordinal = ps.ordinal))
  INSERT INTO episode_passage (episode_id, ordinal, namespace, embedding)
  SELECT p.episode_id, p.ordinal, own.namespace, p.v::vector FROM passage p JOIN own ON own.id = p.episode_id
  ON CONFLICT (episode_id, ordinal) DO UPDATE SET embedding = EXCLUDED.embedding`;

/**
 * Embeds episodes (their text with the speaker, and the passages of longer
 * ones) in one embedder call and stores every vector in one statement. Used by
 * extraction's first stage and by scripts/reembed.ts, so both embed alike.
 */
export async function storeEpisodeVectors(
  db: Queryable,
  embedder: EmbeddingProvider,
  episodes: EmbeddableEpisode[],
  options: { passages: boolean },
): Promise<void> {
  // Without passages (EPISODE_PASSAGES=false) the statement removes any stored earlier.
  const passages = episodes.map((e) => (options.passages ? episodePassages(e) : []));
  const vectors = (await embedder.embed([...episodes.map(episodeEmbeddingText), ...passages.flat()])).map(toVectorSql);
  const owners = passages.flatMap((texts, i) => texts.map(() => episodes[i].id));
  const ordinals = passages.flatMap((texts) => texts.map((_, i) => i + 1));
  await db.query(STORE, [episodes.map((e) => e.id), vectors.slice(0, episodes.length), embedder.model, owners, ordinals, vectors.slice(episodes.length)]);
}
