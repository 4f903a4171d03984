import { episodeFilter, factFilter } from '../scope.js';
import type { SqlParams } from '../sql.js';
import { requestedKinds, type SignalBranchBuilder } from './statement.js';

/** Terms in more than this share of rows still score, but stop generating candidates (unless every term is that common). */
const COMMON_TERM_SHARE = 0.05;
const MAX_TERMS = 48;
/**
 * A keyword branch reads the rows of its terms in phases, rarest terms first:
 * the first phase takes terms while together they match at most the first
 * bound's estimated rows (at least the rarest term), the next phase up to the
 * next bound, the last the remaining terms. A phase runs only when the ones
 * before cannot fill the list on their own (see phasedBranch). Measured at
 * 100,000 episodes: one bound of 500 rows, 1,000 or 2,000 left namespace-wide
 * context at 10.1, 9.2 and 13.0 ms of PostgreSQL time per request; three
 * phases ([100, 1000, 5000], [200, 2000]) came out within noise of one bound.
 */
const PHASE_ROWS = [1000];

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
 * when none is); `q1` … `qN`, those terms split into phases by `phaseRows`
 * (estimated rows: share times the table's row estimate, rarest first); and
 * `rest1` … `rest(N-1)`, the summed weight of every term outside phases 1…k,
 * which is the most a row matching none of their terms can score.
 */
function candidateQueries(table: 'episode' | 'fact', phaseRows: readonly number[]): string {
  const orOf = (filter: string) => `to_tsquery('simple', string_agg(quote_literal(g.lexeme), ' | ') FILTER (WHERE ${filter}))`;
  const last = phaseRows.length + 1;
  const phase = `CASE WHEN term_rank = 1 THEN 1 ${phaseRows.map((bound, i) => `WHEN est_rows <= ${Number(bound)} THEN ${i + 1}`).join(' ')} ELSE ${last} END`;
  const phases = Array.from({ length: last }, (_, i) => `${orOf(`r.phase = ${i + 1}`)} AS q${i + 1}`);
  const rests = Array.from({ length: last - 1 }, (_, i) => `coalesce(sum(g.idf) FILTER (WHERE r.phase IS NULL OR r.phase > ${i + 1}), 0)::float8 AS rest${i + 1}`);
  return `cand_${table} AS (
      WITH g AS (SELECT lexeme, share, idf, share <= ${COMMON_TERM_SHARE} OR NOT EXISTS (SELECT 1 FROM terms_${table} WHERE share <= ${COMMON_TERM_SHARE}) AS gen
                 FROM terms_${table}),
           ranked AS (SELECT lexeme, row_number() OVER w AS term_rank,
                             sum(share) OVER w * (SELECT greatest(c.reltuples, 0) FROM pg_class c WHERE c.oid = '${table}'::regclass) AS est_rows
                      FROM g WHERE gen WINDOW w AS (ORDER BY share, lexeme)),
           r AS (SELECT lexeme, ${phase} AS phase FROM ranked)
      SELECT ${[`${orOf('g.gen')} AS q`, ...phases, ...rests].join(', ')}
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
 * One kind's keyword list in phases, with the same result as scoring every
 * row that matches any generating term (MaxScore pruning, written by hand
 * because Postgres' full-text search has no top-k by weighted terms): each
 * phase scores the rows of its terms that no earlier phase read; a row that
 * has none of phases 1…k's terms scores at most `rest_k`, so when phases 1…k
 * hold `depth` rows scoring above that, the later phases' scans are skipped
 * (one-time filters). A common word of a namespace-wide question ("work"
 * among 100,000 turns) is then never scanned.
 */
function phasedBranch(p: SqlParams, spec: KeywordTable, limit: string, phases: number): { ctes: string[]; branch: string } {
  const { table, alias: a, tsv } = spec;
  const columns = `${a}.id, (SELECT sum(t.idf) FROM terms_${table} t WHERE ${a}.${tsv} @@ t.tq)::float8 AS score,
        ts_rank_cd(${a}.${tsv}, c.q, 1)::float8 AS tiebreak, ${a}.${spec.recency} AS recency`;
  const order = `ORDER BY score DESC, tiebreak DESC, recency DESC, id`;
  const filter = spec.filter(p);
  const name = (k: number) => `kw${k}_${table}`;
  const readSoFar = (k: number) => Array.from({ length: k - 1 }, (_, i) => `SELECT * FROM ${name(i + 1)}`).join(' UNION ALL ');
  const ctes = Array.from({ length: phases }, (_, i) => {
    const k = i + 1;
    const gate = k === 1 ? '' : `(SELECT count(*) FROM (${readSoFar(k)}) k, cand_${table} cc WHERE k.score > cc.rest${k - 1} + 1e-9) < ${limit} AND `;
    const unread = Array.from({ length: k - 1 }, (_, j) => ` AND (c.q${j + 1} IS NULL OR NOT ${a}.${tsv} @@ c.q${j + 1})`).join('');
    return `${name(k)} AS (SELECT ${columns} FROM ${table} ${a}, cand_${table} c
      WHERE ${gate}${filter} AND ${a}.${tsv} @@ c.q${k}${unread} ${order} LIMIT ${limit})`;
  });
  const branch = `(SELECT 'keyword' AS signal, '${table}' AS kind, id, score, tiebreak
      FROM (${readSoFar(phases + 1)}) k ${order} LIMIT ${limit})`;
  return { ctes, branch };
}

/**
 * Full-text matches of any query term (an OR query, not the all-terms
 * default), ranked by the summed rarity of the terms a row contains, then by
 * cover density, then recency; one list per kind. `phaseRows` are the phases'
 * bounds (tests compare bounds: the lists must not change).
 */
export function keywordBranchesWith(phaseRows: readonly number[]): SignalBranchBuilder {
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
      const phases = phasedBranch(p, spec, limit, phaseRows.length + 1);
      ctes.push(weightedTerms(p, spec.table, text), candidateQueries(spec.table, phaseRows), ...phases.ctes);
      branches.push(phases.branch);
    }
    return { signal: 'keyword', kinds, ctes, branches };
  };
}

export const keywordBranches: SignalBranchBuilder = keywordBranchesWith(PHASE_ROWS);
