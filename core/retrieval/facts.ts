import type { Queryable } from '../db/pool.js';
import type { QueryResultRow } from 'pg';
import { effectiveConfidence, freshness } from '../domain/decay.js';
import type { DecayClass } from '../domain/types.js';
import { effectiveConfidenceSql } from './decaySql.js';
import { factFilter, referenceTime, type ReadScope } from './scope.js';
import { SqlParams } from './sql.js';

export interface EntityRef {
  id: string;
  name: string;
  type: string;
}

/** A fact as every read endpoint returns it. */
export interface FactView {
  id: string;
  subject: EntityRef;
  predicate: string;
  predicate_raw: string;
  family: string;
  object: EntityRef | null;
  value: string | null;
  fact_text: string;
  memory_kind: string;
  importance: number;
  confidence: number;
  effective_confidence: number;
  decay_class: DecayClass;
  last_confirmed_at: string;
  freshness: string;
  valid_from: string | null;
  invalid_at: string | null;
  recorded_at: string;
  expired_at: string | null;
  invalidated_by: string | null;
  source: string;
  sensitivity: string;
  episode_ids: string[];
  forgotten_at: string | null;
}

/** What a context block shows of a fact: enough to state, weigh and cite it. */
export type CompactFactView = Pick<
  FactView,
  'id' | 'subject' | 'predicate' | 'family' | 'object' | 'value' | 'fact_text' | 'effective_confidence' | 'decay_class' | 'freshness' | 'last_confirmed_at' | 'valid_from' | 'episode_ids'
>;

/** The columns `toCompactFactView` reads (subject/object names joined in). */
export interface CompactFactRow {
  id: string;
  subject_id: string;
  subject_name: string;
  subject_type: string;
  predicate: string;
  family: string;
  object_id: string | null;
  object_name: string | null;
  object_type: string | null;
  value: string | null;
  fact_text: string;
  confidence: number;
  decay_class: DecayClass;
  last_confirmed_at: Date;
  valid_from: Date | null;
  episode_ids: string[];
}

/** The columns `toFactView` reads. */
export interface FactRow extends CompactFactRow {
  predicate_raw: string;
  memory_kind: string;
  importance: number;
  invalid_at: Date | null;
  recorded_at: Date;
  expired_at: Date | null;
  invalidated_by: string | null;
  source: string;
  sensitivity: string;
  forgotten_at: Date | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const round = (n: number) => Math.round(n * 1000) / 1000;

export function toCompactFactView(row: CompactFactRow, at: Date): CompactFactView {
  return {
    id: row.id,
    subject: { id: row.subject_id, name: row.subject_name, type: row.subject_type },
    predicate: row.predicate,
    family: row.family,
    object: row.object_id ? { id: row.object_id, name: row.object_name ?? '', type: row.object_type ?? 'other' } : null,
    value: row.value,
    fact_text: row.fact_text,
    effective_confidence: round(effectiveConfidence(row.confidence, row.decay_class, row.last_confirmed_at, at)),
    decay_class: row.decay_class,
    freshness: freshness(at, row.last_confirmed_at),
    last_confirmed_at: row.last_confirmed_at.toISOString(),
    valid_from: iso(row.valid_from),
    episode_ids: row.episode_ids,
  };
}

export function toFactView(row: FactRow, at: Date): FactView {
  return {
    ...toCompactFactView(row, at),
    predicate_raw: row.predicate_raw,
    memory_kind: row.memory_kind,
    importance: round(row.importance),
    confidence: round(row.confidence),
    invalid_at: iso(row.invalid_at),
    recorded_at: row.recorded_at.toISOString(),
    expired_at: iso(row.expired_at),
    invalidated_by: row.invalidated_by,
    source: row.source,
    sensitivity: row.sensitivity,
    forgotten_at: iso(row.forgotten_at),
  };
}

/**
 * The ids of the episodes a fact (`f`) came from, oldest first, within the
 * namespace `ns` (a placeholder); `live` filters them (`e.forgotten_at IS NULL`,
 * or `true` for operators). A semi-join: a fact and an episode can be linked
 * more than once (created, confirmed, refined).
 */
export function factEpisodeIdsSql(ns: string, live: string): string {
  return `ARRAY(SELECT e.id FROM episode e WHERE e.id IN (SELECT fe.episode_id FROM fact_episode fe WHERE fe.fact_id = f.id)
            AND e.namespace = ${ns} AND ${live} ORDER BY e.occurred_at, e.id)`;
}

export interface FactQuery {
  /** Extra condition on `f`, built with the same parameters. */
  where: (p: SqlParams) => string;
  /** `effective`: effective confidence; `priority`: effective confidence weighted by importance. */
  order: 'effective' | 'priority';
  limit: number;
  /** Facts meeting this condition on `f` come first, before the order, so the limit cuts the others first. */
  lead?: (p: SqlParams) => string;
}

/** The fact columns `CompactFactRow` reads; the names of both ends are joined in. */
const COMPACT_FACT_COLUMNS = ['id', 'subject_id', 'predicate', 'family', 'object_id', 'value', 'fact_text', 'confidence', 'decay_class', 'last_confirmed_at', 'valid_from'];

/** The fact columns `FactRow` reads. */
const VIEW_FACT_COLUMNS = [
  ...COMPACT_FACT_COLUMNS, 'predicate_raw', 'memory_kind', 'importance', 'invalid_at', 'recorded_at', 'expired_at', 'invalidated_by', 'source', 'sensitivity', 'forgotten_at',
];

/** `columns` of fact `f`, with the names and types of subject `s` and object `o`. */
function joinedColumns(columns: string[]): string {
  const ends = 's.name AS subject_name, s.type AS subject_type, o.name AS object_name, o.type AS object_type';
  return `${columns.map((c) => `f.${c}`).join(', ')}, ${ends}`;
}

/** The columns of `FactRow` but `episode_ids`, for a query joining `fact f`, subject `s` and object `o`. */
export const FACT_VIEW_COLUMNS = joinedColumns(VIEW_FACT_COLUMNS);

/**
 * Facts of the scope valid at the reference time, with names of both ends,
 * provenance and decay, ordered in SQL by (effective) confidence so a budget
 * can cut the list anywhere. Facts on forgotten entities stay hidden.
 *
 * The facts are ranked and cut first, and only the kept ones are joined to
 * their entities. A forgotten end is found in the namespace's forgotten
 * entities (a hashed subplan over a partial index, usually empty): joined
 * before the cut, the planner hashed every entity of the namespace for the
 * object's check, 7 of a per-user context's 10 ms of facts at a million
 * episodes (4,446 entities, 670 facts of the user). The cut names its
 * columns: with `f.*` each sorted row carried its embedding and tsvector
 * (per-user context facts at 100,000 episodes: 2.5 → 1.9 ms in EXPLAIN).
 *
 * The cut reads only what ranks and filters a fact, which the scope's live
 * facts index carries (migration 20261206040000): a user's facts are ranked
 * from that index alone, and only the kept ones are read from the table, by
 * id. Each fact's row is about 1.5 kB (its embedding is inline), one heap
 * page per fact of a user, and a user at a million episodes has 673.
 */
async function selectFacts<R>(db: Queryable, scope: ReadScope, query: FactQuery, columns: string[]): Promise<R[]> {
  const p = new SqlParams();
  const at = `${p.add(referenceTime(scope))}::timestamptz`;
  const ns = p.add(scope.namespace);
  const live = (a: string) => (scope.includeForgotten ? 'true' : `${a}.forgotten_at IS NULL`);
  const forgotten = `SELECT x.id FROM entity x WHERE x.namespace = ${ns} AND x.forgotten_at IS NOT NULL`;
  const liveEnds = scope.includeForgotten ? 'true' : `f.subject_id NOT IN (${forgotten}) AND (f.object_id IS NULL OR f.object_id NOT IN (${forgotten}))`;
  const effective = effectiveConfidenceSql('f', at);
  const rank = query.order === 'priority' ? `${effective} * (0.5 + 0.5 * f.importance)` : effective;
  const lead = query.lead ? `(${query.lead(p)}) DESC, ` : '';
  const sql = `
    SELECT ${joinedColumns(columns)}, ${factEpisodeIdsSql(ns, live('e'))} AS episode_ids
    FROM (SELECT f.id, ${rank} AS rank, f.last_confirmed_at FROM fact f
          WHERE ${factFilter(p, scope)} AND ${liveEnds} AND (${query.where(p)})
          ORDER BY ${lead}rank DESC, f.last_confirmed_at DESC, f.id
          LIMIT ${p.add(query.limit)}) kept
    JOIN fact f ON f.id = kept.id
    JOIN entity s ON s.id = f.subject_id LEFT JOIN entity o ON o.id = f.object_id
    ORDER BY kept.rank DESC, kept.last_confirmed_at DESC, kept.id`;
  const { rows } = await db.query<R & QueryResultRow>(sql, p.values);
  return rows;
}

/** Facts as every fact endpoint shows them. */
export async function queryFacts(db: Queryable, scope: ReadScope, query: FactQuery): Promise<FactView[]> {
  const at = referenceTime(scope);
  return (await selectFacts<FactRow>(db, scope, query, VIEW_FACT_COLUMNS)).map((r) => toFactView(r, at));
}

/** The same facts in the same order, with only what a context block shows (a context request reads them every turn). */
export async function queryCompactFacts(db: Queryable, scope: ReadScope, query: FactQuery): Promise<CompactFactView[]> {
  const at = referenceTime(scope);
  return (await selectFacts<CompactFactRow>(db, scope, query, COMPACT_FACT_COLUMNS)).map((r) => toCompactFactView(r, at));
}
