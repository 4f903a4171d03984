import { episodeFilter, factOverlapFilter } from '../scope.js';
import type { SqlParams } from '../sql.js';
import type { SignalInput } from './context.js';
import { requestedKinds, type SignalBranchBuilder } from './statement.js';

const DAY_S = 86_400;

/**
 * How on-topic a row is, between 0.2 and 1.2: cosine closeness to the query
 * embedding when the recipe uses the vector query anyway; otherwise (the
 * context recipe, which leaves the model off its read path) the cover density
 * of the query's words, squashed into [0, 1).
 */
async function topicality(p: SqlParams, input: SignalInput): Promise<(embedding: string, tsv: string) => string> {
  if (input.recipe.weights.vector > 0) {
    const q = `${p.add(await input.vector())}::vector`;
    return (embedding: string) => `(0.2 + GREATEST(0, 1 - coalesce(${embedding} <=> ${q}, 1)))`;
  }
  if (input.tsquery === null) return () => '0.2';
  const q = `to_tsquery('english', ${p.add(input.tsquery)})`;
  return (_embedding: string, tsv: string) => `(0.2 + ts_rank_cd(${tsv}, ${q}, 32))`;
}

/**
 * Temporal signal, only when the query names a time: episodes that happened
 * in or near that window and facts whose validity overlaps it. Proximity
 * (1 inside, falling off with distance in window lengths) is scaled by
 * closeness to the query so the window's on-topic rows lead.
 */
export const temporalBranches: SignalBranchBuilder = async (input, p) => {
  const { window, recipe, scope } = input;
  const depth = recipe.depths.temporal;
  const kinds = requestedKinds(input, ['episode', 'fact'] as const);
  if (depth === 0 || !window || !kinds.length) return null;
  const lengthS = Math.max(DAY_S, (window.end.getTime() - window.start.getTime()) / 1000);
  const padMs = lengthS * 1000;
  const topical = await topicality(p, input);
  const start = `${p.add(window.start)}::timestamptz`;
  const end = `${p.add(window.end)}::timestamptz`;
  const len = p.add(lengthS);
  const limit = p.add(depth);
  const branches: string[] = [];
  if (kinds.includes('episode')) {
    const lo = p.add(new Date(window.start.getTime() - padMs));
    const hi = p.add(new Date(window.end.getTime() + padMs));
    branches.push(`(SELECT 'temporal' AS signal, 'episode' AS kind, e.id,
        (${topical('e.embedding', 'e.content_tsv')} / (1 + GREATEST(0, EXTRACT(EPOCH FROM (${start} - e.occurred_at))::float8, EXTRACT(EPOCH FROM (e.occurred_at - ${end}))::float8) / ${len}))::float8 AS score,
        0::float8 AS tiebreak
      FROM episode e WHERE ${episodeFilter(p, scope)} AND e.occurred_at >= ${lo}::timestamptz AND e.occurred_at < ${hi}::timestamptz
      ORDER BY score DESC, e.id LIMIT ${limit})`);
  }
  if (kinds.includes('fact')) {
    branches.push(`(SELECT 'temporal' AS signal, 'fact' AS kind, f.id, ${topical('f.embedding', 'f.fact_tsv')}::float8 AS score, 0::float8 AS tiebreak FROM fact f
      WHERE ${factOverlapFilter(p, scope, window.start, window.end)} ORDER BY score DESC, f.id LIMIT ${limit})`);
  }
  return { signal: 'temporal', kinds, ctes: [], branches };
};
