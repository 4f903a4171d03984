import { referenceTime, type ReadScope } from './scope.js';
import type { SqlParams } from './sql.js';

/** What superseded a memory: the fact that replaced the last of its statements, and when. */
export interface SupersededBy {
  fact_id: string | null;
  fact_text: string | null;
  at: string;
}

/** Where a memory's statements stand at the reference time. */
export interface MemoryStanding {
  /**
   * The latest of its statements to stop holding, when one has. With `currentFactIds` empty every statement has
   * ended; otherwise only some ("My sister Lena lives in Porto." after Lena moved: she is still his sister).
   */
  superseded: SupersededBy | null;
  /** The facts it produced that hold (for telling whether the fact list already says it). */
  currentFactIds: Set<string>;
}

interface ProducedFactRow {
  fact_id: string;
  invalid_at: Date | null;
  expired_at: Date | null;
  successor_id: string | null;
  successor_text: string | null;
  /** Its end came with it ("I worked at Initech until 2021"): nothing later ended it, so nothing superseded it. */
  stated_end: boolean;
}

/**
 * A fact has ended by `at` when its world-time validity closed by then (unless it was stated with that end, a
 * statement about the past that still holds), or (now) when it was retracted.
 */
function endedAt(row: ProducedFactRow, at: Date, asOf: boolean): Date | null {
  if (row.invalid_at && row.invalid_at <= at && !row.stated_end) return row.invalid_at;
  if (!asOf && !row.invalid_at && row.expired_at) return row.expired_at;
  return null;
}

/** A produced-fact row as the statement's JSON carries it (timestamps as text). */
export interface ProducedFactJson extends Omit<ProducedFactRow, 'invalid_at' | 'expired_at'> {
  invalid_at: string | null;
  expired_at: string | null;
}

/**
 * A column for a statement that reads episode `e`: the facts the episode produced
 * (created, confirmed or refined; not the ones it ended itself, by invalidating
 * them or by stating what replaced them), as a JSON array, for `standingOf`.
 * A correlated subquery on fact_episode by episode, so the memories a context
 * block shows get their standing in the statement that reads them: a statement
 * of its own was a fifth of a context request's round trips to PostgreSQL.
 */
export function producedFactsColumn(p: SqlParams, scope: ReadScope, e: string): string {
  return `(SELECT json_agg(x) FROM (
      SELECT DISTINCT f.id AS fact_id, f.invalid_at, f.expired_at, n.id AS successor_id, n.fact_text AS successor_text,
             -- Ending a fact that held records when (expired_at) and, where a statement replaced it, by what.
             (f.invalidated_by IS NULL AND f.expired_at IS NULL) AS stated_end
      FROM fact_episode fe JOIN fact f ON f.id = fe.fact_id
      LEFT JOIN fact n ON n.id = f.invalidated_by AND n.forgotten_at IS NULL
      WHERE fe.episode_id = ${e}.id AND fe.relation <> 'invalidated'
        -- What the episode itself ended is not superseded for it: "Lena moved from Porto to Madrid" says she lived in
        -- Porto until then and ends it in one breath. Told in order it invalidates that fact; told before the Porto
        -- turn, it creates the fact already ended, with its own Madrid fact as the successor.
        AND NOT EXISTS (SELECT 1 FROM fact_episode own WHERE own.episode_id = fe.episode_id
                        AND ((own.fact_id = fe.fact_id AND own.relation = 'invalidated') OR own.fact_id = f.invalidated_by))
        AND f.namespace = ${p.add(scope.namespace)} AND f.forgotten_at IS NULL) x)`;
}

/**
 * Where an episode's statements stand at the scope's reference time, from its
 * `producedFactsColumn`; undefined when it produced none.
 */
function standingOf(scope: ReadScope, produced: ProducedFactJson[] | null): MemoryStanding | undefined {
  if (!produced?.length) return undefined;
  const at = referenceTime(scope);
  const facts: ProducedFactRow[] = produced.map((f) => ({
    ...f,
    invalid_at: f.invalid_at === null ? null : new Date(f.invalid_at),
    expired_at: f.expired_at === null ? null : new Date(f.expired_at),
  }));
  const ended = facts.map((f) => ({ f, end: endedAt(f, at, scope.asOf !== undefined) }));
  const current = ended.filter((x) => !x.end).map((x) => x.f.fact_id);
  const over = ended.filter((x): x is { f: ProducedFactRow; end: Date } => x.end !== null);
  let superseded: SupersededBy | null = null;
  if (over.length) {
    // The latest ending says what holds now.
    const last = over.reduce((a, b) => (b.end > a.end ? b : a));
    superseded = { fact_id: last.f.successor_id, fact_text: last.f.successor_text, at: last.end.toISOString() };
  }
  return { superseded, currentFactIds: new Set(current) };
}

/** The standing of each row's episode that produced facts, by its id, from rows carrying `producedFactsColumn` as `produced`. */
export function standingsByEpisode(scope: ReadScope, rows: Array<{ id: string; produced: ProducedFactJson[] | null }>): Map<string, MemoryStanding> {
  const standings = new Map<string, MemoryStanding>();
  for (const row of rows) {
    const standing = standingOf(scope, row.produced);
    if (standing) standings.set(row.id, standing);
  }
  return standings;
}
