import { episodeFilter, factOverlapFilter } from '../scope.js';
import { SqlParams } from '../sql.js';
import type { RankedList } from '../types.js';
import type { SignalInput } from './context.js';

const DAY_S = 86_400;

/**
 * Temporal signal, only when the query names a time: episodes that happened
 * in or near that window and facts whose validity overlaps it. Proximity
 * (1 inside, falling off with distance in window lengths) is scaled by
 * closeness to the query so the window's on-topic rows lead.
 */
export async function temporalSignal(input: SignalInput): Promise<RankedList[]> {
  const { window, recipe, scope } = input;
  const depth = recipe.depths.temporal;
  if (depth === 0 || !window) return [];
  const lengthS = Math.max(DAY_S, (window.end.getTime() - window.start.getTime()) / 1000);
  const padMs = lengthS * 1000;
  const p = new SqlParams();
  const q = `${p.add(await input.vector())}::vector`;
  const start = `${p.add(window.start)}::timestamptz`;
  const end = `${p.add(window.end)}::timestamptz`;
  const len = p.add(lengthS);
  const limit = p.add(depth);
  const topical = (col: string) => `(0.2 + GREATEST(0, 1 - coalesce(${col} <=> ${q}, 1)))`;
  const branches: string[] = [];
  if (input.kinds.has('episode')) {
    const lo = p.add(new Date(window.start.getTime() - padMs));
    const hi = p.add(new Date(window.end.getTime() + padMs));
    branches.push(`(SELECT 'episode' AS kind, e.id,
        ${topical('e.embedding')} / (1 + GREATEST(0, EXTRACT(EPOCH FROM (${start} - e.occurred_at))::float8, EXTRACT(EPOCH FROM (e.occurred_at - ${end}))::float8) / ${len}) AS score
      FROM episode e WHERE ${episodeFilter(p, scope)} AND e.occurred_at >= ${lo}::timestamptz AND e.occurred_at < ${hi}::timestamptz
      ORDER BY score DESC, e.id LIMIT ${limit})`);
  }
  if (input.kinds.has('fact')) {
    branches.push(`(SELECT 'fact' AS kind, f.id, ${topical('f.embedding')} AS score FROM fact f
      WHERE ${factOverlapFilter(p, scope, window.start, window.end)} ORDER BY score DESC, f.id LIMIT ${limit})`);
  }
  if (!branches.length) return [];
  const { rows } = await input.db.query<{ kind: 'episode' | 'fact'; id: string; score: number }>(branches.join(' UNION ALL '), p.values);
  return (['episode', 'fact'] as const)
    .filter((kind) => input.kinds.has(kind))
    .map((kind) => ({
      signal: 'temporal' as const,
      kind,
      hits: rows
        .filter((r) => r.kind === kind)
        .sort((a, b) => b.score - a.score)
        .map((r) => ({ id: r.id, score: Number(r.score) })),
    }));
}
