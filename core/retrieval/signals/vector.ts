import { episodeFilter, factFilter, type ReadScope } from '../scope.js';
import { requestedKinds, type SignalBranchBuilder } from './statement.js';

/**
 * Nearest rows by cosine distance. A namespace-wide search walks the HNSW
 * index; a search narrowed to a user, agent or run covers few rows, so it
 * ranks them exactly instead (`OFFSET 0` keeps the planner from choosing the
 * index, whose filtered walk would visit most of the namespace to find them).
 * Iterative HNSW scans return rows in relaxed order: the tiebreak (negated
 * distance) lets the caller sort them exactly.
 */
function nearest(table: 'episode' | 'fact', where: string, q: string, limit: string, exact: boolean): string {
  const a = table === 'episode' ? 'e' : 'f';
  const base = `SELECT '${table}' AS kind, ${a}.id, ${a}.embedding <=> ${q} AS distance FROM ${table} ${a} WHERE ${where} AND ${a}.embedding IS NOT NULL`;
  const ranked = `SELECT 'vector' AS signal, kind, id, 1 - distance AS score, -distance AS tiebreak FROM`;
  return exact
    ? `(${ranked} (${base} OFFSET 0) s ORDER BY distance LIMIT ${limit})`
    : `(${ranked} (${base} ORDER BY ${a}.embedding <=> ${q} LIMIT ${limit}) s)`;
}

function narrow(scope: ReadScope): boolean {
  return scope.userId !== undefined || scope.agentId !== undefined || scope.runId !== undefined;
}

/** Nearest episodes and facts by cosine distance, one list per kind. */
export const vectorBranches: SignalBranchBuilder = async (input, p) => {
  const depth = input.recipe.depths.vector;
  const kinds = requestedKinds(input, ['episode', 'fact'] as const);
  if (depth === 0 || !kinds.length) return null;
  const q = `${p.add(await input.vector())}::vector`;
  const limit = p.add(depth);
  const branches: string[] = [];
  if (kinds.includes('episode')) branches.push(nearest('episode', episodeFilter(p, input.scope), q, limit, narrow(input.scope)));
  if (kinds.includes('fact')) branches.push(nearest('fact', factFilter(p, input.scope), q, limit, input.scope.userId !== undefined));
  return { signal: 'vector', kinds, ctes: [], branches };
};
