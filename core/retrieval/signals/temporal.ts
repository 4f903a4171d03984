import { episodeFilter, factOverlapFilter } from '../scope.js';
import type { SqlParams } from '../sql.js';
import type { SignalInput } from './context.js';
import { requestedKinds, type SignalBranchBuilder } from './statement.js';

const DAY_S = 86_400;

interface Topicality {
  /** Between 0.2 and 1.2, from a row's embedding and tsvector columns. */
  score: (embedding: string, tsv: string) => string;
  /** The cosine distance the score falls with, when it is the vector's (an HNSW index orders by it). */
  distance: ((embedding: string) => string) | null;
  /** When the score is the query words' cover density: the rows that contain one of them (a GIN index finds them); the others all score the floor. */
  matches: ((tsv: string) => string) | null;
}

/** The least a row's topicality can be: what a row scores when nothing ties it to the query (no query word in it). */
const TOPICALITY_FLOOR = '0.2';

/**
 * How on-topic a row is, between 0.2 and 1.2: cosine closeness to the query
 * embedding when the recipe uses the vector query anyway; otherwise (the
 * context recipe, which leaves the model off its read path) the cover density
 * of the query's words, squashed into [0, 1).
 */
async function topicality(p: SqlParams, input: SignalInput): Promise<Topicality> {
  if (input.recipe.weights.vector > 0) {
    const q = `${p.add(await input.vector())}::vector`;
    return { score: (embedding) => `(${TOPICALITY_FLOOR} + GREATEST(0, 1 - coalesce(${embedding} <=> ${q}, 1)))`, distance: (embedding) => `${embedding} <=> ${q}`, matches: null };
  }
  if (input.tsquery === null) return { score: () => TOPICALITY_FLOOR, distance: null, matches: null };
  // A scalar subquery is evaluated once (an InitPlan); `to_tsquery` itself, with a parameter in a generic plan, parsed
  // and stemmed the query again for every row of the window (about 5 µs a row).
  const q = `(SELECT to_tsquery('english', ${p.add(input.tsquery)}))`;
  // Cover density only where a query word is: it is 0 elsewhere, but computing it read the whole tsvector of every
  // row of the window, 3.5 µs a row against 0.8 µs for the match ("gardening plans in 2025" for one user at a
  // million episodes, 3,334 rows: 11.8 → 2.8 ms).
  const matches = (tsv: string) => `${tsv} @@ ${q}`;
  return { score: (_embedding, tsv) => `(${TOPICALITY_FLOOR} + CASE WHEN ${matches(tsv)} THEN ts_rank_cd(${tsv}, ${q}, 32) ELSE 0 END)`, distance: null, matches };
}

/** Windows holding more rows than this are searched through the embedding index (see `windowBranches`). */
export const TEMPORAL_EXACT_SCAN_MAX = 5_000;
/** Nearest rows the index yields per wanted row, before they are ranked by the full score. */
const ANN_CANDIDATES_PER_ROW = 4;

interface WindowRows {
  kind: 'episode' | 'fact';
  /** Rows of the scope in the window, as a condition on alias `r`. */
  inWindow: string;
  /** The same rows stated so that no B-tree index can serve the window, where one could (see the episode's). */
  inWindowUnindexed?: string;
  /**
   * The ids of the rows in the window as a query (alias `w`), where an index alone yields them: then the count
   * and the exact scan share them, one index-only scan, and the exact scan reads only those rows, by id.
   */
  idsInWindow?: string;
  /** The columns `score` reads. */
  columns: string;
  /** The row's tsvector column. */
  tsv: string;
  /** The row's score, as an expression on the given alias. */
  score: (alias: string) => string;
  /** The score is the row's topicality alone (no proximity to the window): a row holding no query word scores the floor. */
  scoreIsTopicality?: boolean;
}

/**
 * One kind's temporal branches. Scoring every row of a wide window ("in 2025"
 * over a whole namespace) computes a cosine distance per row: 100k episodes
 * took 90 ms on three cores. So the rows in the window are counted first (at
 * most `exactScanMax` + 1 of them): a window that small is scored row by row
 * as before; a wider one takes its rows nearest the query from the HNSW index
 * and scores only those. Inside the window the proximity is the same for every
 * row, so the best by score are among the nearest. The count gates each branch
 * with a one-time filter: only one of the two runs.
 */
function windowBranches(p: SqlParams, rows: WindowRows, topical: Topicality, depth: number, exactScanMax: number): { ctes: string[]; branches: string[] } {
  const table = rows.kind;
  const limit = p.add(depth);
  const select = (a: string, score = rows.score(a)) => `SELECT 'temporal' AS signal, '${rows.kind}' AS kind, ${a}.id, ${score} AS score, 0::float8 AS tiebreak`;
  const exactOver = (inWindow: string, gate: string) => `(${select('r')} FROM ${table} r WHERE ${inWindow}${gate} ORDER BY score DESC, r.id LIMIT ${limit})`;
  if (!topical.distance && !topical.matches) return { ctes: [], branches: [exactOver(rows.inWindow, '')] };
  const cte = `temporal_${rows.kind}_window`;
  const wide = `(SELECT wide FROM ${cte})`;
  // The window's first exactScanMax + 1 ids, when an index alone yields them: the count reads them and, when they
  // are all there are, the exact scan reads just those rows.
  const idsCte = `${cte}_ids`;
  const ids = rows.idsInWindow ? `${idsCte} AS MATERIALIZED (${rows.idsInWindow} LIMIT ${p.add(exactScanMax + 1)})` : null;
  const matchedCte = `${cte}_matched`;
  // Scored by the query's words, from the window's ids: the rows holding a query word come from the text index and
  // are the only ones read; the others all score the floor and follow in id order, so the first `depth` of those ids
  // are all the exact scan can still take. Reading each of the window's rows by id to test it took most of a
  // namespace-wide "what happened at Monarch Labs last month" at 100,000 episodes (4,526 facts: 16 of 20 ms).
  const byMatches = ids && topical.matches && rows.scoreIsTopicality;
  const exact = byMatches
    ? `(${select('t', 't.score')} FROM (
         SELECT m.id, m.score FROM ${matchedCte} m
         UNION ALL
         (SELECT w.id, ${TOPICALITY_FLOOR}::float8 FROM ${idsCte} w WHERE NOT ${wide} AND NOT EXISTS (SELECT 1 FROM ${matchedCte} m WHERE m.id = w.id)
          ORDER BY w.id LIMIT ${limit})
       ) t ORDER BY t.score DESC, t.id LIMIT ${limit})`
    : exactOver(ids ? `r.id = ANY(ARRAY(SELECT id FROM ${idsCte}))` : rows.inWindow, ` AND NOT ${wide}`);
  const matched = byMatches
    ? [`${matchedCte} AS MATERIALIZED (SELECT r.id, ${rows.score('r')} AS score FROM ${table} r
         WHERE r.id IN (SELECT id FROM ${idsCte}) AND ${topical.matches!(`r.${rows.tsv}`)} AND NOT ${wide})`]
    : [];
  // A wide window's rows come from an index: the HNSW walk nearest the query, or (words scoring) the rows holding
  // a query word from the GIN index. A window's other rows would only tie at the floor score (ordered by id).
  const indexed = topical.distance
    ? `(${select('near')}
      FROM (SELECT ${rows.columns} FROM ${table} r WHERE ${rows.inWindowUnindexed ?? rows.inWindow} AND ${wide}
             ORDER BY ${topical.distance('r.embedding')} LIMIT ${p.add(depth * ANN_CANDIDATES_PER_ROW)}) near
      ORDER BY score DESC, near.id LIMIT ${limit})`
    : `(${select('r')} FROM ${table} r WHERE ${rows.inWindowUnindexed ?? rows.inWindow} AND ${topical.matches!(`r.${rows.tsv}`)} AND ${wide}
      ORDER BY score DESC, r.id LIMIT ${limit})`;
  const counted = ids ? idsCte : `(SELECT 1 FROM ${table} r WHERE ${rows.inWindow} LIMIT ${p.add(exactScanMax + 1)}) w`;
  return {
    ctes: [...(ids ? [ids] : []), `${cte} AS (SELECT count(*) > ${p.add(exactScanMax)} AS wide FROM ${counted})`, ...matched],
    branches: [exact, indexed],
  };
}

/** The temporal signal's builder, with the window size past which rows come from the embedding index. */
export function temporalBranchesWith(exactScanMax: number): SignalBranchBuilder {
  return async (input, p) => {
    const { window, recipe, scope } = input;
    const depth = recipe.depths.temporal;
    const kinds = requestedKinds(input, ['episode', 'fact'] as const);
    if (depth === 0 || !window || !kinds.length) return null;
    const lengthS = Math.max(DAY_S, (window.end.getTime() - window.start.getTime()) / 1000);
    const padMs = lengthS * 1000;
    const topical = await topicality(p, input);
    const parts: WindowRows[] = [];
    if (kinds.includes('episode')) {
      const start = `${p.add(window.start)}::timestamptz`;
      const end = `${p.add(window.end)}::timestamptz`;
      const len = p.add(lengthS);
      const lo = p.add(new Date(window.start.getTime() - padMs));
      const hi = p.add(new Date(window.end.getTime() + padMs));
      const scoped = episodeFilter(p, scope, 'r');
      const range = `r.occurred_at >= ${lo}::timestamptz AND r.occurred_at < ${hi}::timestamptz`;
      // The same user again, as the (namespace, coalesce(user_id, ''), occurred_at) index states it: with it the
      // generic plan reads only the user's rows in the window. Without it, it read every row of the user through the
      // scope index and checked the range on each (a month at a million episodes: 3,333 rows, 5.8 ms to count the
      // window and 4.5 ms to score it, for none in it). The index also carries user_id and forgotten_at, so the
      // window's count reads no row (migration 20261206010000).
      const userWindow = scope.userId === undefined ? '' : ` AND coalesce(r.user_id, '') = ${p.add(scope.userId)}`;
      parts.push({
        kind: 'episode',
        inWindow: `${scoped}${userWindow} AND ${range}`,
        // The generic plan cannot know the window is wide and, offered the (namespace, occurred_at) index, walks
        // the whole window and sorts it by distance (230 ms at 100k) instead of walking the HNSW index: the range
        // wrapped in IS TRUE is the same condition, checked on each row the HNSW index yields.
        inWindowUnindexed: `${scoped} AND (${range}) IS TRUE`,
        columns: 'r.id, r.embedding, r.content_tsv, r.occurred_at',
        tsv: 'content_tsv',
        score: (a) =>
          `(${topical.score(`${a}.embedding`, `${a}.content_tsv`)} / (1 + GREATEST(0, date_part('epoch', ${start} - ${a}.occurred_at), date_part('epoch', ${a}.occurred_at - ${end})) / ${len}))::float8`,
      });
    }
    if (kinds.includes('fact')) {
      parts.push({
        kind: 'fact',
        // No B-tree serves a validity overlap: the HNSW walk needs no disguise here.
        inWindow: factOverlapFilter(p, scope, window.start, window.end, 'r'),
        // Namespace-wide, the window's facts are picked from the live-validity index alone (it carries every
        // column the overlap and the decay floor test, and the id), then read by id. Its key only bounds where
        // validity starts: a bitmap scan read every fact begun before the window's end from the heap to keep the
        // overlapping ones ("… in September" at 100,000 episodes: 19,950 read for 4,529, 21 ms).
        idsInWindow: scope.userId === undefined ? `SELECT w.id FROM fact w WHERE ${factOverlapFilter(p, scope, window.start, window.end, 'w')}` : undefined,
        columns: 'r.id, r.embedding, r.fact_tsv',
        tsv: 'fact_tsv',
        score: (a) => `${topical.score(`${a}.embedding`, `${a}.fact_tsv`)}::float8`,
        scoreIsTopicality: true,
      });
    }
    const built = parts.map((rows) => windowBranches(p, rows, topical, depth, exactScanMax));
    return { signal: 'temporal', kinds, ctes: built.flatMap((b) => b.ctes), branches: built.flatMap((b) => b.branches) };
  };
}

/**
 * Temporal signal, only when the query names a time: episodes that happened
 * in or near that window and facts whose validity overlaps it. Proximity
 * (1 inside, falling off with distance in window lengths) is scaled by
 * closeness to the query so the window's on-topic rows lead.
 */
export const temporalBranches: SignalBranchBuilder = temporalBranchesWith(TEMPORAL_EXACT_SCAN_MAX);
