import { episodeFilter, factFilter, type ReadScope } from '../scope.js';
import type { SqlParams } from '../sql.js';
import { isNarrow, SCOPE_EPISODES, scopeEpisodesCte } from './scopeEpisodes.js';
import { requestedKinds, type SignalBranchBuilder } from './statement.js';

const RANKED = `SELECT 'vector' AS signal, kind, id, 1 - distance AS score, -distance AS tiebreak FROM`;

/**
 * Nearest rows by cosine distance. A namespace-wide search walks the HNSW
 * index; a search narrowed to a user, agent or run covers few rows, so it
 * ranks them exactly instead (`OFFSET 0` keeps the planner from choosing the
 * index, whose filtered walk would visit most of the namespace to find them).
 * Iterative HNSW scans return rows in relaxed order: the tiebreak (negated
 * distance) lets the caller sort them exactly. Ranked exactly, equal distances
 * go by id (facts stated in the same words have the same vector; without it
 * their order was where the rows lay in the table).
 */
function nearestFacts(where: string, q: string, limit: string, exact: boolean): string {
  const base = `SELECT 'fact' AS kind, f.id, f.embedding <=> ${q} AS distance FROM fact f WHERE ${where} AND f.embedding IS NOT NULL`;
  return exact
    ? `(${RANKED} (${base} OFFSET 0) s ORDER BY distance, id LIMIT ${limit})`
    : `(${RANKED} (${base} ORDER BY f.embedding <=> ${q} LIMIT ${limit}) s)`;
}

/**
 * Episodes by their own vector or their closest passage's, whichever is
 * nearer (core/ingest/passages.ts: longer episodes are also embedded sentence
 * by sentence). Namespace-wide, both HNSW indexes are walked and merged;
 * narrowed, every episode in scope is scored exactly, from SCOPE_EPISODES,
 * equal distances by id (repeated texts have identical vectors; without it
 * their order was where the rows lay in the table).
 */
function nearestEpisodes(p: SqlParams, scope: ReadScope, q: string, limit: string): string {
  if (isNarrow(scope)) {
    return `(${RANKED} (SELECT 'episode' AS kind, se.id, se.distance FROM ${SCOPE_EPISODES} se WHERE se.distance IS NOT NULL) s ORDER BY distance, id LIMIT ${limit})`;
  }
  const where = episodeFilter(p, scope);
  return `(${RANKED} (SELECT 'episode' AS kind, id, min(distance) AS distance FROM (
      (SELECT e.id, e.embedding <=> ${q} AS distance FROM episode e WHERE ${where} AND e.embedding IS NOT NULL ORDER BY e.embedding <=> ${q} LIMIT ${limit})
      UNION ALL
      (SELECT e.id, near.distance FROM (SELECT ps.episode_id, ps.embedding <=> ${q} AS distance FROM episode_passage ps
         WHERE ps.namespace = ${p.add(scope.namespace)} ORDER BY ps.embedding <=> ${q} LIMIT ${limit}) near
       JOIN episode e ON e.id = near.episode_id WHERE ${where})
    ) candidates GROUP BY id ORDER BY min(distance) LIMIT ${limit}) s)`;
}

/** Nearest episodes and facts by cosine distance, one list per kind. */
export const vectorBranches: SignalBranchBuilder = async (input, p) => {
  const depth = input.recipe.depths.vector;
  const kinds = requestedKinds(input, ['episode', 'fact'] as const);
  if (depth === 0 || !kinds.length) return null;
  const q = `${p.add(await input.vector())}::vector`;
  const limit = p.add(depth);
  // Narrowed, the scope's episodes are read once here; the graph signal ranks its linked episodes from them too.
  const ctes = kinds.includes('episode') && isNarrow(input.scope) ? [scopeEpisodesCte(p, input.scope, q)] : [];
  const branches: string[] = [];
  if (kinds.includes('episode')) branches.push(nearestEpisodes(p, input.scope, q, limit));
  if (kinds.includes('fact')) branches.push(nearestFacts(factFilter(p, input.scope), q, limit, input.scope.userId !== undefined));
  return { signal: 'vector', kinds, ctes, branches };
};
