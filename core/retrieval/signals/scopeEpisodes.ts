import { episodeFilter, type ReadScope } from '../scope.js';
import type { SqlParams } from '../sql.js';
import type { SignalInput } from './context.js';

/** The CTE holding every episode of a narrow scope, read once for the vector and graph signals. */
export const SCOPE_EPISODES = 'scope_episode';

/** A search narrowed to a user, agent or run: few rows, scored exactly rather than through the HNSW index. */
export function isNarrow(scope: ReadScope): boolean {
  return scope.userId !== undefined || scope.agentId !== undefined || scope.runId !== undefined;
}

/**
 * Whether this search reads its scope's episodes once into SCOPE_EPISODES: a
 * narrow search whose vector signal ranks episodes. It scores every episode of
 * the scope anyway, and the graph signal's linked episodes are a subset of
 * them. Read twice (once in scope order, once by id through the primary key
 * for each linked episode), a question naming the user at a million episodes
 * (3,333 of them theirs, all linked to the user's entity) spent 28 ms in the
 * graph branch on top of 11 ms in the vector one.
 */
export function readsScopeEpisodes(input: SignalInput): boolean {
  return isNarrow(input.scope) && input.recipe.weights.vector > 0 && input.recipe.depths.vector > 0 && input.kinds.has('episode');
}

/**
 * An episode's cosine distance to `q`: its own vector's or its closest
 * passage's, whichever is nearer. Only an episode with passages probes for
 * them (`has_passages`): most have none, and the probe cost more than the
 * distance (one user's 3,334 episodes at a million: 5.2 → 2.5 ms).
 */
function episodeDistance(alias: string, q: string): string {
  const passages = `CASE WHEN ${alias}.has_passages THEN coalesce((SELECT min(ps.embedding <=> ${q}) FROM episode_passage ps WHERE ps.episode_id = ${alias}.id), 1) ELSE 1 END`;
  return `LEAST(coalesce(${alias}.embedding <=> ${q}, 1), ${passages})`;
}

/**
 * The scope's episodes with what both signals read: `distance` (the vector
 * signal's, null without an embedding), `own_distance` (the episode's own
 * vector's, the graph signal's), the folded speaker and the tsvector.
 */
export function scopeEpisodesCte(p: SqlParams, scope: ReadScope, q: string): string {
  return `${SCOPE_EPISODES} AS MATERIALIZED (SELECT e.id, lower(e.speaker) AS speaker, e.content_tsv,
      e.embedding <=> ${q} AS own_distance,
      CASE WHEN e.embedding IS NULL THEN NULL ELSE ${episodeDistance('e', q)} END AS distance
    FROM episode e WHERE ${episodeFilter(p, scope)})`;
}
