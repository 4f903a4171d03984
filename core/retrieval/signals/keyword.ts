import { episodeFilter, factFilter } from '../scope.js';
import type { SqlParams } from '../sql.js';
import { requestedKinds, type SignalBranchBuilder } from './statement.js';

/** Terms in more than this share of rows still score, but stop generating candidates (unless every term is that common). */
const COMMON_TERM_SHARE = 0.05;
const MAX_TERMS = 48;

/**
 * Query lexemes (Postgres' own english parser and stemmer) weighted by inverse
 * document frequency, estimated from the column statistics ANALYZE keeps,
 * copied into `term_share` (see its migration): lexemes not listed are rarer
 * than every listed one. Postgres' ts_rank has no notion of term rarity, so
 * without this "eat" would count as much as "tiramisu". The CTEs are named
 * `terms_<name>` and `cand_<name>` (`name` defaults to the table).
 */
export function weightedTerms(p: SqlParams, table: 'episode' | 'fact', text: string, name: string = table): string {
  return `terms_${name} AS (
      WITH q AS (SELECT DISTINCT t.lexeme FROM unnest(to_tsvector('english', ${p.add(text)})) t LIMIT ${MAX_TERMS}),
           f AS (SELECT q.lexeme, coalesce(ts.share, (SELECT fl.share FROM term_share fl WHERE fl.tbl = '${table}' AND fl.lexeme = ''), 0.001) AS share
                 FROM q LEFT JOIN term_share ts ON ts.tbl = '${table}' AND ts.lexeme = q.lexeme)
      SELECT lexeme, share, ln(1 + (1 - share) / (share + 0.0001)) AS idf, to_tsquery('simple', quote_literal(lexeme)) AS tq FROM f),
    cand_${name} AS (
      SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | ')
        FILTER (WHERE share <= ${COMMON_TERM_SHARE} OR NOT EXISTS (SELECT 1 FROM terms_${name} WHERE share <= ${COMMON_TERM_SHARE})))
        AS q FROM terms_${name})`;
}

/**
 * Full-text matches of any query term (an OR query, not the all-terms
 * default), ranked by the summed rarity of the terms a row contains, then by
 * cover density; one list per kind.
 */
export const keywordBranches: SignalBranchBuilder = async (input, p) => {
  const depth = input.recipe.depths.keyword;
  const kinds = requestedKinds(input, ['episode', 'fact'] as const);
  if (depth === 0 || input.tsquery === null || !kinds.length) return null;
  // Only the sanitized words reach the parser: the same text the OR query was built from.
  const text = input.tsquery.replace(/['|]/g, ' ');
  const limit = p.add(depth);
  const ctes: string[] = [];
  const branches: string[] = [];
  if (kinds.includes('episode')) {
    ctes.push(weightedTerms(p, 'episode', text));
    branches.push(`(SELECT 'keyword' AS signal, 'episode' AS kind, e.id, (SELECT sum(t.idf) FROM terms_episode t WHERE e.content_tsv @@ t.tq)::float8 AS score,
        ts_rank_cd(e.content_tsv, c.q, 1)::float8 AS tiebreak
      FROM episode e, cand_episode c WHERE ${episodeFilter(p, input.scope)} AND e.content_tsv @@ c.q
      ORDER BY score DESC, tiebreak DESC, e.occurred_at DESC LIMIT ${limit})`);
  }
  if (kinds.includes('fact')) {
    ctes.push(weightedTerms(p, 'fact', text));
    branches.push(`(SELECT 'keyword' AS signal, 'fact' AS kind, f.id, (SELECT sum(t.idf) FROM terms_fact t WHERE f.fact_tsv @@ t.tq)::float8 AS score,
        ts_rank_cd(f.fact_tsv, c.q, 1)::float8 AS tiebreak
      FROM fact f, cand_fact c WHERE ${factFilter(p, input.scope)} AND f.fact_tsv @@ c.q
      ORDER BY score DESC, tiebreak DESC, f.recorded_at DESC LIMIT ${limit})`);
  }
  return { signal: 'keyword', kinds, ctes, branches };
};
