import { episodeFilter, factFilter } from '../scope.js';
import { SqlParams } from '../sql.js';
import type { RankedList } from '../types.js';
import type { SignalInput } from './context.js';

/** Terms in more than this share of rows still score, but stop generating candidates (unless every term is that common). */
const COMMON_TERM_SHARE = 0.05;
const MAX_TERMS = 48;

/**
 * Query lexemes (Postgres' own english parser and stemmer) weighted by inverse
 * document frequency, estimated from the column statistics ANALYZE keeps,
 * copied into `term_share` (see its migration): lexemes not listed are rarer
 * than every listed one. Postgres' ts_rank has no notion of term rarity, so
 * without this "eat" would count as much as "tiramisu".
 */
export function weightedTerms(p: SqlParams, table: 'episode' | 'fact', text: string): string {
  return `terms_${table} AS (
      WITH q AS (SELECT DISTINCT t.lexeme FROM unnest(to_tsvector('english', ${p.add(text)})) t LIMIT ${MAX_TERMS}),
           f AS (SELECT q.lexeme, coalesce(ts.share, (SELECT fl.share FROM term_share fl WHERE fl.tbl = '${table}' AND fl.lexeme = ''), 0.001) AS share
                 FROM q LEFT JOIN term_share ts ON ts.tbl = '${table}' AND ts.lexeme = q.lexeme)
      SELECT lexeme, share, ln(1 + (1 - share) / (share + 0.0001)) AS idf, to_tsquery('simple', quote_literal(lexeme)) AS tq FROM f),
    cand_${table} AS (
      SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | ')
        FILTER (WHERE share <= ${COMMON_TERM_SHARE} OR NOT EXISTS (SELECT 1 FROM terms_${table} WHERE share <= ${COMMON_TERM_SHARE})))
        AS q FROM terms_${table})`;
}

/**
 * Full-text matches of any query term (an OR query, not the all-terms
 * default), ranked by the summed rarity of the terms a row contains, then by
 * cover density; one list per kind.
 */
export async function keywordSignal(input: SignalInput): Promise<RankedList[]> {
  const depth = input.recipe.depths.keyword;
  if (depth === 0 || input.tsquery === null) return [];
  const p = new SqlParams();
  // Only the sanitized words reach the parser: the same text the OR query was built from.
  const text = input.tsquery.replace(/['|]/g, ' ');
  const limit = p.add(depth);
  const ctes: string[] = [];
  const branches: string[] = [];
  if (input.kinds.has('episode')) {
    ctes.push(weightedTerms(p, 'episode', text));
    branches.push(`(SELECT 'episode' AS kind, e.id, (SELECT sum(t.idf) FROM terms_episode t WHERE e.content_tsv @@ t.tq) AS score,
        ts_rank_cd(e.content_tsv, c.q, 1) AS rank
      FROM episode e, cand_episode c WHERE ${episodeFilter(p, input.scope)} AND e.content_tsv @@ c.q
      ORDER BY score DESC, rank DESC, e.occurred_at DESC LIMIT ${limit})`);
  }
  if (input.kinds.has('fact')) {
    ctes.push(weightedTerms(p, 'fact', text));
    branches.push(`(SELECT 'fact' AS kind, f.id, (SELECT sum(t.idf) FROM terms_fact t WHERE f.fact_tsv @@ t.tq) AS score,
        ts_rank_cd(f.fact_tsv, c.q, 1) AS rank
      FROM fact f, cand_fact c WHERE ${factFilter(p, input.scope)} AND f.fact_tsv @@ c.q
      ORDER BY score DESC, rank DESC, f.recorded_at DESC LIMIT ${limit})`);
  }
  if (!branches.length) return [];
  const { rows } = await input.db.query<{ kind: 'episode' | 'fact'; id: string; score: number; rank: number }>(
    `WITH ${ctes.join(', ')} ${branches.join(' UNION ALL ')}`,
    p.values,
  );
  return (['episode', 'fact'] as const)
    .filter((kind) => input.kinds.has(kind))
    .map((kind) => ({
      signal: 'keyword' as const,
      kind,
      hits: rows
        .filter((r) => r.kind === kind)
        .sort((a, b) => b.score - a.score || b.rank - a.rank)
        .map((r) => ({ id: r.id, score: Number(r.score) })),
    }));
}
