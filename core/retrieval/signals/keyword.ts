import { episodeFilter, factFilter } from '../scope.js';
import type { SqlParams } from '../sql.js';
import { requestedKinds, type SignalBranchBuilder } from './statement.js';

/** Terms in more than this share of rows still score, but stop generating candidates (unless every term is that common). */
const COMMON_TERM_SHARE = 0.05;
const MAX_TERMS = 48;
/**
 * The first phase of a keyword branch reads the rows of the rarest terms, as
 * many of them as together match about this many rows of the table (at least
 * the rarest one); the rest are read only when the first phase cannot fill
 * the list on its own (see keywordBranches).
 */
const FIRST_PHASE_ROWS = 1000;

/**
 * Query lexemes (Postgres' own english parser and stemmer) weighted by inverse
 * document frequency, estimated from the column statistics ANALYZE keeps,
 * copied into `term_share` (see its migration): lexemes not listed are rarer
 * than every listed one. Postgres' ts_rank has no notion of term rarity, so
 * without this "eat" would count as much as "tiramisu". The CTE is named
 * `terms_<name>` (`name` defaults to the table).
 */
export function weightedTerms(p: SqlParams, table: 'episode' | 'fact', text: string, name: string = table): string {
  return `terms_${name} AS (
      WITH q AS (SELECT DISTINCT t.lexeme FROM unnest(to_tsvector('english', ${p.add(text)})) t LIMIT ${MAX_TERMS}),
           f AS (SELECT q.lexeme, coalesce(ts.share, (SELECT fl.share FROM term_share fl WHERE fl.tbl = '${table}' AND fl.lexeme = ''), 0.001) AS share
                 FROM q LEFT JOIN term_share ts ON ts.tbl = '${table}' AND ts.lexeme = q.lexeme)
      SELECT lexeme, share, ln(1 + (1 - share) / (share + 0.0001)) AS idf, to_tsquery('simple', quote_literal(lexeme)) AS tq FROM f)`;
}

/**
 * The candidate queries of a keyword branch, as `cand_<table>`: `q`, the terms
 * that generate candidates (any term at most COMMON_TERM_SHARE common, or all
 * when none is); `first`, the rarest of those, up to FIRST_PHASE_ROWS estimated
 * rows (share times the table's row estimate); `second`, the other generating
 * terms; `rest`, the summed weight of every term outside `first`, which is the
 * most a row that matches none of `first` can score.
 */
function candidateQueries(table: 'episode' | 'fact', firstPhaseRows: number): string {
  const orOf = (filter: string) => `to_tsquery('simple', string_agg(quote_literal(g.lexeme), ' | ') FILTER (WHERE ${filter}))`;
  return `cand_${table} AS (
      WITH g AS (SELECT lexeme, share, idf, share <= ${COMMON_TERM_SHARE} OR NOT EXISTS (SELECT 1 FROM terms_${table} WHERE share <= ${COMMON_TERM_SHARE}) AS gen
                 FROM terms_${table}),
           r AS (SELECT lexeme, (sum(share) OVER w * (SELECT greatest(c.reltuples, 0) FROM pg_class c WHERE c.oid = '${table}'::regclass) <= ${Number(firstPhaseRows)}
                                 OR row_number() OVER w = 1) AS first
                 FROM g WHERE gen WINDOW w AS (ORDER BY share, lexeme))
      SELECT ${orOf('g.gen')} AS q, ${orOf('r.first')} AS first, ${orOf('g.gen AND NOT r.first')} AS second,
             coalesce(sum(g.idf) FILTER (WHERE r.first IS NOT TRUE), 0)::float8 AS rest
      FROM g LEFT JOIN r USING (lexeme))`;
}

interface KeywordTable {
  table: 'episode' | 'fact';
  alias: string;
  tsv: string;
  /** The newer of two equally scored rows comes first. */
  recency: string;
  filter: (p: SqlParams) => string;
}

/**
 * One kind's keyword list in two phases, with the same result as scoring
 * every row that matches any generating term (MaxScore pruning, written by
 * hand because Postgres' full-text search has no top-k by weighted terms): the
 * first phase scores the rows of the rarest terms; a row that has none of
 * them scores at most `rest`, so when the first phase holds `depth` rows
 * scoring above that, the second phase's scan is skipped (a one-time filter).
 * A common word of a namespace-wide question ("work" among 100,000 turns) is
 * then never scanned.
 */
function twoPhaseBranch(p: SqlParams, spec: KeywordTable, limit: string): { ctes: string[]; branch: string } {
  const { table, alias: a, tsv } = spec;
  const columns = `${a}.id, (SELECT sum(t.idf) FROM terms_${table} t WHERE ${a}.${tsv} @@ t.tq)::float8 AS score,
        ts_rank_cd(${a}.${tsv}, c.q, 1)::float8 AS tiebreak, ${a}.${spec.recency} AS recency`;
  const order = `ORDER BY score DESC, tiebreak DESC, recency DESC, id`;
  const first = `kw1_${table} AS (SELECT ${columns} FROM ${table} ${a}, cand_${table} c
      WHERE ${spec.filter(p)} AND ${a}.${tsv} @@ c.first ${order} LIMIT ${limit})`;
  const second = `kw2_${table} AS (SELECT ${columns} FROM ${table} ${a}, cand_${table} c
      WHERE (SELECT count(*) FROM kw1_${table} k, cand_${table} cc WHERE k.score > cc.rest + 1e-9) < ${limit}
        AND ${spec.filter(p)} AND ${a}.${tsv} @@ c.second AND (c.first IS NULL OR NOT ${a}.${tsv} @@ c.first) ${order} LIMIT ${limit})`;
  const branch = `(SELECT 'keyword' AS signal, '${table}' AS kind, id, score, tiebreak
      FROM (SELECT * FROM kw1_${table} UNION ALL SELECT * FROM kw2_${table}) k ${order} LIMIT ${limit})`;
  return { ctes: [first, second], branch };
}

/**
 * Full-text matches of any query term (an OR query, not the all-terms
 * default), ranked by the summed rarity of the terms a row contains, then by
 * cover density, then recency; one list per kind. `firstPhaseRows` sizes the
 * first phase (tests compare sizes: the lists must not change).
 */
export function keywordBranchesWith(firstPhaseRows: number): SignalBranchBuilder {
  return async (input, p) => {
    const depth = input.recipe.depths.keyword;
    const kinds = requestedKinds(input, ['episode', 'fact'] as const);
    if (depth === 0 || input.tsquery === null || !kinds.length) return null;
    // Only the sanitized words reach the parser: the same text the OR query was built from.
    const text = input.tsquery.replace(/['|]/g, ' ');
    const limit = p.add(depth);
    const tables: KeywordTable[] = [];
    if (kinds.includes('episode')) {
      tables.push({ table: 'episode', alias: 'e', tsv: 'content_tsv', recency: 'occurred_at', filter: (q) => episodeFilter(q, input.scope) });
    }
    if (kinds.includes('fact')) {
      tables.push({ table: 'fact', alias: 'f', tsv: 'fact_tsv', recency: 'recorded_at', filter: (q) => factFilter(q, input.scope) });
    }
    const ctes: string[] = [];
    const branches: string[] = [];
    for (const spec of tables) {
      const phases = twoPhaseBranch(p, spec, limit);
      ctes.push(weightedTerms(p, spec.table, text), candidateQueries(spec.table, firstPhaseRows), ...phases.ctes);
      branches.push(phases.branch);
    }
    return { signal: 'keyword', kinds, ctes, branches };
  };
}

export const keywordBranches: SignalBranchBuilder = keywordBranchesWith(FIRST_PHASE_ROWS);
