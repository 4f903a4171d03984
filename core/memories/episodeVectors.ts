import { toVectorSql, type Queryable } from '../db/pool.js';
import type { EmbeddingProvider } from '../extraction/types.js';
import { episodeEmbeddingText, type Turn } from '../ingest/episodeEmbedding.js';
import { episodePassages } from '../ingest/passages.js';

export interface EmbeddableEpisode extends Turn {
  id: string;
  namespace: string;
}

/** The episode's vector and its passages' in one statement: both or neither; a re-run replaces them. */
const STORE = `WITH episode_vector AS (
    UPDATE episode SET embedding = $2::vector, embedding_model = $3 WHERE id = $1 RETURNING id),
  stale AS (DELETE FROM episode_passage WHERE episode_id = $1 AND ordinal > cardinality($5::text[]))
  INSERT INTO episode_passage (episode_id, ordinal, namespace, embedding)
  SELECT ev.id, p.ordinal, $4, p.v::vector FROM episode_vector ev, unnest($5::text[]) WITH ORDINALITY AS p(v, ordinal)
  ON CONFLICT (episode_id, ordinal) DO UPDATE SET embedding = EXCLUDED.embedding`;

/**
 * Embeds episodes (their text with the speaker, and the passages of longer
 * ones) in one embedder call and stores the vectors. Used by extraction's
 * first stage and by scripts/reembed.ts, so both embed alike.
 */
export async function storeEpisodeVectors(
  db: Queryable,
  embedder: EmbeddingProvider,
  episodes: EmbeddableEpisode[],
  options: { passages: boolean },
): Promise<void> {
  // Without passages (EPISODE_PASSAGES=false) any stored earlier are removed: the statement keeps ordinals up to 0.
  const passages = episodes.map((e) => (options.passages ? episodePassages(e) : []));
  const vectors = (await embedder.embed(episodes.flatMap((e, i) => [episodeEmbeddingText(e), ...passages[i]]))).map(toVectorSql);
  let next = 0;
  for (const [i, episode] of episodes.entries()) {
    const [own, ...ofPassages] = vectors.slice(next, next + 1 + passages[i].length);
    next += 1 + passages[i].length;
    await db.query(STORE, [episode.id, own, embedder.model, episode.namespace, ofPassages]);
  }
}
