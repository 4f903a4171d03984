import { episodeFilter, factFilter, type ReadScope } from '../scope.js';
import { SqlParams } from '../sql.js';
import type { RankedList } from '../types.js';
import type { SignalInput } from './context.js';

/**
 * Nearest rows by cosine distance. A namespace-wide search walks the HNSW
 * index; a search narrowed to a user, agent or run covers few rows, so it
 * ranks them exactly instead (`OFFSET 0` keeps the planner from choosing the
 * index, whose filtered walk would visit most of the namespace to find them).
 */
function nearest(table: 'episode' | 'fact', where: string, q: string, limit: string, exact: boolean): string {
  const a = table === 'episode' ? 'e' : 'f';
  const base = `SELECT '${table}' AS kind, ${a}.id, ${a}.embedding <=> ${q} AS distance FROM ${table} ${a} WHERE ${where} AND ${a}.embedding IS NOT NULL`;
  return exact
    ? `(SELECT kind, id, distance FROM (${base} OFFSET 0) s ORDER BY distance LIMIT ${limit})`
    : `(${base} ORDER BY ${a}.embedding <=> ${q} LIMIT ${limit})`;
}

function narrow(scope: ReadScope): boolean {
  return scope.userId !== undefined || scope.agentId !== undefined || scope.runId !== undefined;
}

/** Nearest episodes and facts by cosine distance, one list per kind. */
export async function vectorSignal(input: SignalInput): Promise<RankedList[]> {
  const depth = input.recipe.depths.vector;
  if (depth === 0) return [];
  const p = new SqlParams();
  const q = `${p.add(await input.vector())}::vector`;
  const limit = p.add(depth);
  const branches: string[] = [];
  if (input.kinds.has('episode')) branches.push(nearest('episode', episodeFilter(p, input.scope), q, limit, narrow(input.scope)));
  if (input.kinds.has('fact')) branches.push(nearest('fact', factFilter(p, input.scope), q, limit, input.scope.userId !== undefined));
  if (!branches.length) return [];
  const { rows } = await input.db.query<{ kind: 'episode' | 'fact'; id: string; distance: number }>(branches.join(' UNION ALL '), p.values);
  // Iterative HNSW scans return rows in relaxed order: sort them here.
  return (['episode', 'fact'] as const)
    .filter((kind) => input.kinds.has(kind))
    .map((kind) => ({
      signal: 'vector' as const,
      kind,
      hits: rows
        .filter((r) => r.kind === kind)
        .sort((a, b) => a.distance - b.distance)
        .map((r) => ({ id: r.id, score: 1 - r.distance })),
    }));
}
