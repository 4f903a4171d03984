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
 * them: it takes their distances from there, and reads only their own rows
 * (their words) from the table.
 */
export function readsScopeEpisodes(input: SignalInput): boolean {
  return isNarrow(input.scope) && input.recipe.weights.vector > 0 && input.recipe.depths.vector > 0 && input.kinds.has('episode');
}

/**
 * A SCOPE_EPISODES row's distance to `q` (`se`): its own vector's or its
 * closest passage's, whichever is nearer. Only an episode with passages
 * probes for them (`has_passages`): most have none, and the probe cost more
 * than the distance (one user's 3,334 episodes at a million: 5.2 → 2.5 ms).
 */
export function scopeEpisodeDistance(se: string, q: string): string {
  const passages = `CASE WHEN ${se}.has_passages THEN coalesce((SELECT min(ps.embedding <=> ${q}) FROM episode_passage ps WHERE ps.episode_id = ${se}.id), 1) ELSE 1 END`;
  return `LEAST(${se}.own_distance, ${passages})`;
}

/**
 * The scope's episodes with their own vector's distance to `q`
 * (`own_distance`, null without an embedding) and whether they have
 * passages: only what `episode_user_vectors_idx` carries, so a user's
 * episodes are scored from that index alone. Read from the table, each
 * episode was a page of its own (a user's rows lie among everyone's): 3,333
 * page reads for a user at a million episodes, 6.1-6.6 ms to rank them
 * against 2.4-2.5 ms from the index (README, "A user's vectors in one index").
 */
export function scopeEpisodesCte(p: SqlParams, scope: ReadScope, q: string): string {
  return `${SCOPE_EPISODES} AS MATERIALIZED (SELECT e.id, e.has_passages, e.embedding <=> ${q} AS own_distance
    FROM episode e WHERE ${episodeFilter(p, scope)})`;
}
