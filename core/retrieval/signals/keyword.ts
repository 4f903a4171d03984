import type { Queryable } from '../../db/pool.js';
import { episodeFilter, factFilter } from '../scope.js';
import type { SqlParams } from '../sql.js';
import { planKeywordScan, phaseCount, tsqueryOperand, type KeywordPhase, type KeywordPlan, type KeywordPlanOptions, type KeywordTerm } from './keywordPlan.js';
import { isNarrow } from './scopeEpisodes.js';
import { requestedKinds, type SignalBranchBuilder } from './statement.js';

const MAX_TERMS = 48;

/** The query's first MAX_TERMS distinct lexemes (Postgres' own english parser and stemmer), as rows `lexeme`. */
const queryLexemes = (text: string) =>
  `SELECT t.lexeme FROM unnest(to_tsvector('english', ${text})) t ORDER BY t.positions[1], t.lexeme LIMIT ${MAX_TERMS}`;

/** Inverse document frequency from a term's share of rows. */
const idfOf = (share: string) => `ln(1 + (1 - ${share}) / (${share} + 0.0001))`;

/** A term's share of `table`'s rows: lexemes `term_share` does not list are rarer than every listed one. */
const shareOf = (table: string, lexeme: string) =>
  `coalesce((SELECT ts.share FROM term_share ts WHERE ts.tbl = ${table} AND ts.lexeme = ${lexeme}),
            (SELECT fl.share FROM term_share fl WHERE fl.tbl = ${table} AND fl.lexeme = ''), 0.001)::float8`;

/**
 * Query lexemes weighted by inverse document frequency, estimated from the
 * column statistics ANALYZE keeps, copied into `term_share` (see its
 * migration). Postgres' ts_rank has no notion of term rarity, so without this
 * "eat" would count as much as "tiramisu". The CTE is named `terms_<name>`
 * (`name` defaults to the table) with columns lexeme, share, idf, tq.
 * MATERIALIZED: a CTE referenced once is otherwise inlined, and a per-row
 * subquery over it parsed the query, looked up its terms' shares and built
 * their tsqueries again for every candidate row (the graph signal's linked
 * episodes: 8 µs a row, about 4 ms of a namespace-wide search).
 */
export function weightedTerms(p: SqlParams, table: 'episode' | 'fact', text: string, name: string = table): string {
  return `terms_${name} AS MATERIALIZED (
      SELECT lexeme, share, ${idfOf('share')} AS idf, to_tsquery('simple', quote_literal(lexeme)) AS tq
      FROM (SELECT q.lexeme, ${shareOf(`'${table}'`, 'q.lexeme')} AS share FROM (${queryLexemes(p.add(text))}) q) f)`;
}

type KeywordTable = 'episode' | 'fact';

/** Queries with at most this many terms score a row with one CASE per term slot (unused slots get null terms). */
export const SCORE_SLOTS = 8;

/**
 * A row's keyword score: the summed weight of the query terms its tsvector
 * holds. Up to SCORE_SLOTS terms it is a fixed sum of CASEs, one per slot (a
 * null term matches nothing), so one statement shape serves every such
 * query; a longer query sums over the unnested terms. The subquery form cost
 * about 1 µs more per candidate row (PostgreSQL materializes `unnest` for each
 * row): at 100,000 episodes a namespace-wide question reading 5,000
 * candidates spent 12.2 ms where the CASEs take 9.0 ms.
 */
function rowScore(p: SqlParams, tsv: string, terms: KeywordTerm[]): string {
  if (terms.length > SCORE_SLOTS) {
    const termQueries = p.add(terms.map((t) => tsqueryOperand(t.lexeme)));
    const termWeights = p.add(terms.map((t) => t.idf));
    return `(SELECT sum(u.w) FROM unnest(${termQueries}::tsquery[], ${termWeights}::float8[]) AS u(tq, w) WHERE ${tsv} @@ u.tq)::float8`;
  }
  const slots = Array.from({ length: SCORE_SLOTS }, (_, i) => {
    const term = terms[i];
    const query = p.add(term ? tsqueryOperand(term.lexeme) : null);
    const weight = p.add(term ? term.idf : null);
    return `CASE WHEN ${tsv} @@ ${query}::tsquery THEN ${weight}::float8 ELSE 0 END`;
  });
  return `(${slots.join(' + ')})::float8`;
}

/**
 * The query's terms with their weights for each table, and each table's row
 * estimate, in one round trip: the keyword scan is planned from them in
 * TypeScript (see keywordPlan.ts), where its bounds are plain arithmetic.
 */
async function termsByTable(db: Queryable, text: string, tables: KeywordTable[]): Promise<Map<KeywordTable, { terms: KeywordTerm[]; rows: number }>> {
  const { rows } = await db.query<{ tbl: KeywordTable; lexeme: string | null; share: number | null; idf: number | null; table_rows: number }>(
    `SELECT t.tbl, w.lexeme, w.share, ${idfOf('w.share')} AS idf, greatest(c.reltuples, 0)::float8 AS table_rows
     FROM unnest($2::text[]) AS t(tbl)
     JOIN pg_class c ON c.oid = to_regclass(t.tbl)
     LEFT JOIN LATERAL (SELECT q.lexeme, ${shareOf('t.tbl', 'q.lexeme')} AS share FROM (${queryLexemes('$1')}) q) w ON true`,
    [text, tables],
  );
  const out = new Map<KeywordTable, { terms: KeywordTerm[]; rows: number }>(tables.map((t) => [t, { terms: [], rows: 0 }]));
  for (const row of rows) {
    const entry = out.get(row.tbl)!;
    entry.rows = Number(row.table_rows);
    if (row.lexeme !== null) entry.terms.push({ lexeme: row.lexeme, share: Number(row.share), idf: Number(row.idf) });
  }
  return out;
}

interface KeywordTableSpec {
  table: KeywordTable;
  alias: string;
  tsv: string;
  /** The newer of two equally scored rows comes first. */
  recency: string;
  filter: (p: SqlParams) => string;
  /** The user whose postings of each phase's words are read from the per-user term index (episodes only). */
  termsOfUser?: string;
}

/**
 * The per-user term index's key for one of a user's words, as its expression
 * builds it (migration 20261206020000_episode_user_terms: user id, unit separator, lexeme).
 */
export const userTermKey = (userId: string, lexeme: string) => `${userId}\u001f${lexeme}`;

/**
 * Which rows of a phase to read. Namespace-wide, the full-text index's
 * postings of its query; narrowed to a user, that user's postings of its
 * generating words in the per-user term index, and every other condition
 * checked on the rows it yields (written so no other index can serve them: a
 * generic plan otherwise intersected them with the word's postings over the
 * whole table). A word common across the namespace has tens of thousands of
 * postings, most of them other users': at a million episodes "plan" had
 * 20,750 and "work" 249,505, and turning them into a bitmap took 6.6 and 59 ms
 * to find one user's 73 and 844 rows, 0.1 ms each through that user's postings.
 */
function phaseRows(p: SqlParams, spec: KeywordTableSpec, filter: string, match: string, phase: KeywordPhase | undefined): string {
  const { alias: a, tsv, termsOfUser } = spec;
  if (termsOfUser === undefined) return `${filter} AND ${a}.${tsv} @@ ${match}::tsquery`;
  const keys = p.add(phase ? phase.generators.map((lexeme) => userTermKey(termsOfUser, lexeme)) : null);
  return `(${filter}) IS TRUE AND (${a}.${tsv} @@ ${match}::tsquery) IS TRUE AND episode_user_terms(${a}.user_id, ${a}.${tsv}) && ${keys}::text[]`;
}

/**
 * One kind's keyword list, read in the plan's phases with the same result as
 * scoring every candidate row. Rows are ordered by score, then the newer
 * first, then id: one total order, so each phase scores the rows of its query
 * that no earlier phase read and keeps only its best `depth` (a row that
 * `depth` rows of its own phase beat cannot make the list). A phase runs only
 * while fewer than `depth` rows read so far score above what an unread row
 * could (a one-time filter, so a skipped phase's scan never starts). The
 * statement's shape is fixed (`slots` phases; an unused one has a null query
 * and is filtered out at once), so one prepared statement serves every query.
 *
 * Rows holding the same query words tie on score, and a namespace-wide
 * question's best rows often do (hundreds of them). Cover density
 * (`ts_rank_cd`) used to break those ties: it had to read every tied row, and
 * at 100,000 episodes it was about a tenth of PostgreSQL's time for a
 * namespace-wide context. Recency breaks them instead: on REALTALK the
 * default recipe's recall@k moved by at most 0.9 points in any category
 * (README, "Keyword ties").
 */
function phasedBranch(p: SqlParams, spec: KeywordTableSpec, plan: KeywordPlan, slots: number, limit: string): { ctes: string[]; branch: string } {
  const { table, alias: a, tsv } = spec;
  if (plan.phases.length > slots) throw new Error(`keyword plan has ${plan.phases.length} phases, the statement ${slots}`);
  const score = rowScore(p, `${a}.${tsv}`, plan.terms);
  const filter = spec.filter(p);
  const name = (k: number) => `kw${k}_${table}`;
  const ctes = Array.from({ length: slots }, (_, i) => {
    const phase = plan.phases[i];
    const match = p.add(phase?.match ?? null);
    const readBefore = p.add(phase?.readBefore ?? null);
    const earlier = Array.from({ length: i }, (_, j) => `SELECT score FROM ${name(j + 1)}`).join(' UNION ALL ');
    const gate = i === 0 ? '' : `AND (SELECT count(*) FROM (${earlier}) k WHERE k.score > ${p.add(plan.phases[i - 1]?.unreadBound ?? 0)}::float8) < ${limit}`;
    return `${name(i + 1)} AS (SELECT ${a}.id, ${score} AS score, ${a}.${spec.recency} AS recency
      FROM ${table} ${a}
      WHERE ${match}::tsquery IS NOT NULL ${gate} AND ${phaseRows(p, spec, filter, match, phase)}
        AND (${readBefore}::tsquery IS NULL OR NOT ${a}.${tsv} @@ ${readBefore}::tsquery)
      ORDER BY score DESC, recency DESC, id LIMIT ${limit})`;
  });
  const all = Array.from({ length: slots }, (_, i) => `SELECT * FROM ${name(i + 1)}`).join(' UNION ALL ');
  // The tiebreak carries the recency, so the caller's sort by (score, tiebreak) keeps this order.
  const branch = `(SELECT 'keyword' AS signal, '${table}' AS kind, k.id, k.score, extract(epoch FROM k.recency)::float8 AS tiebreak
      FROM (${all}) k ORDER BY k.score DESC, k.recency DESC, k.id LIMIT ${limit})`;
  return { ctes, branch };
}

/**
 * Rarity phases of 1,000 estimated rows, and a pair phase for pairs whose
 * rarer term is that rare. Measured at 100,000 episodes without the pair
 * phase: one bound of 500 rows, 1,000 or 2,000 left namespace-wide context at
 * 10.1, 9.2 and 13.0 ms of PostgreSQL time per request; three phases
 * ([100, 1000, 5000], [200, 2000]) came out within noise of one bound.
 */
const DEFAULT_PLAN: KeywordPlanOptions = { phaseRows: [1000], pairRows: 1000 };

/**
 * Namespace-wide, a pair also counts as rare when its terms rarely meet (the
 * product of their shares). At a million episodes a name's words are each in
 * about 2 % of them: no pair was planned, and the first phase scored all
 * 18,500 episodes holding "aurora" to find the 50 best, most of them holding
 * "aurora" and "lopez". Reading the pairs first, the signal statement of a
 * namespace-wide context fell from 96 to 64 ms and of a namespace-wide search
 * from 76 to 53 ms (200 sequential questions each, bench corpus); at 100,000
 * episodes it stayed within noise (agents' questions: 4.6 and 13.5 ms either
 * way). Not in a narrow scope (a user, agent or run): there the scope's own
 * rows already bound the scan, and reading both terms' whole index entries for
 * the pair phase made a per-user context's statement slower (7.2 → 11.5 ms at
 * a million).
 */
const WIDE_PLAN: KeywordPlanOptions = { ...DEFAULT_PLAN, pairEstimate: 'joint' };

/**
 * Full-text matches of any query term (an OR query, not the all-terms
 * default), ranked by the summed rarity of the terms a row contains, then by
 * recency; one list per kind. The options shape the scan's phases:
 * `narrowOptions` in a narrow scope (isNarrow), `wideOptions` namespace-wide
 * (tests compare them: the lists must not change).
 */
export function keywordBranchesWith(narrowOptions: KeywordPlanOptions, wideOptions: KeywordPlanOptions = narrowOptions): SignalBranchBuilder {
  return async (input, p) => {
    const options = isNarrow(input.scope) ? narrowOptions : wideOptions;
    const depth = input.recipe.depths.keyword;
    const kinds = requestedKinds(input, ['episode', 'fact'] as const);
    if (depth === 0 || input.tsquery === null || !kinds.length) return null;
    // Only the sanitized words reach the parser: the same text the OR query was built from.
    const text = input.tsquery.replace(/['|]/g, ' ');
    const specs: KeywordTableSpec[] = [];
    if (kinds.includes('episode')) {
      const { userId } = input.scope;
      const termsOfUser = options.userTerms && userId !== undefined ? userId : undefined;
      specs.push({ table: 'episode', alias: 'e', tsv: 'content_tsv', recency: 'occurred_at', filter: (q) => episodeFilter(q, input.scope), termsOfUser });
    }
    if (kinds.includes('fact')) {
      specs.push({ table: 'fact', alias: 'f', tsv: 'fact_tsv', recency: 'recorded_at', filter: (q) => factFilter(q, input.scope) });
    }
    const stats = await termsByTable(input.db, text, specs.map((s) => s.table));
    const planned = specs.flatMap((spec) => {
      const { terms, rows } = stats.get(spec.table)!;
      const plan = planKeywordScan(terms, rows, options);
      return plan ? [{ spec, plan }] : [];
    });
    // Words Postgres' parser keeps none of (private-use or unassigned letters): nothing to ask, and no parameter
    // added, since one the statement never uses has no type ("could not determine data type of parameter").
    if (!planned.length) return null;
    const limit = p.add(depth);
    const ctes: string[] = [];
    const branches: string[] = [];
    for (const { spec, plan } of planned) {
      const phased = phasedBranch(p, spec, plan, phaseCount(options), limit);
      ctes.push(...phased.ctes);
      branches.push(phased.branch);
    }
    return { signal: 'keyword', kinds, ctes, branches };
  };
}

export const keywordBranches: SignalBranchBuilder = keywordBranchesWith({ ...DEFAULT_PLAN, userTerms: true }, WIDE_PLAN);
