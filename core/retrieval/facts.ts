import type { Queryable } from '../db/pool.js';
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

/** The columns `toFactView` reads (subject/object names joined in). */
export interface FactRow {
  id: string;
  subject_id: string;
  subject_name: string;
  subject_type: string;
  predicate: string;
  predicate_raw: string;
  family: string;
  object_id: string | null;
  object_name: string | null;
  object_type: string | null;
  value: string | null;
  fact_text: string;
  memory_kind: string;
  importance: number;
  confidence: number;
  decay_class: DecayClass;
  last_confirmed_at: Date;
  valid_from: Date | null;
  invalid_at: Date | null;
  recorded_at: Date;
  expired_at: Date | null;
  invalidated_by: string | null;
  source: string;
  sensitivity: string;
  episode_ids: string[];
  forgotten_at: Date | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const round = (n: number) => Math.round(n * 1000) / 1000;

export function toFactView(row: FactRow, at: Date): FactView {
  return {
    id: row.id,
    subject: { id: row.subject_id, name: row.subject_name, type: row.subject_type },
    predicate: row.predicate,
    predicate_raw: row.predicate_raw,
    family: row.family,
    object: row.object_id ? { id: row.object_id, name: row.object_name ?? '', type: row.object_type ?? 'other' } : null,
    value: row.value,
    fact_text: row.fact_text,
    memory_kind: row.memory_kind,
    importance: round(row.importance),
    confidence: round(row.confidence),
    effective_confidence: round(effectiveConfidence(row.confidence, row.decay_class, row.last_confirmed_at, at)),
    decay_class: row.decay_class,
    last_confirmed_at: row.last_confirmed_at.toISOString(),
    freshness: freshness(at, row.last_confirmed_at),
    valid_from: iso(row.valid_from),
    invalid_at: iso(row.invalid_at),
    recorded_at: row.recorded_at.toISOString(),
    expired_at: iso(row.expired_at),
    invalidated_by: row.invalidated_by,
    source: row.source,
    sensitivity: row.sensitivity,
    episode_ids: row.episode_ids,
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
}

/**
 * Facts of the scope valid at the reference time, with names of both ends,
 * provenance and decay, ordered in SQL by (effective) confidence so a budget
 * can cut the list anywhere. Facts on forgotten entities stay hidden.
 */
export async function queryFacts(db: Queryable, scope: ReadScope, query: FactQuery): Promise<FactView[]> {
  const p = new SqlParams();
  const at = `${p.add(referenceTime(scope))}::timestamptz`;
  const ns = p.add(scope.namespace);
  const live = (a: string) => (scope.includeForgotten ? 'true' : `${a}.forgotten_at IS NULL`);
  const effective = effectiveConfidenceSql('f', at);
  const rank = query.order === 'priority' ? `${effective} * (0.5 + 0.5 * f.importance)` : effective;
  const sql = `
    SELECT f.id, f.subject_id, s.name AS subject_name, s.type AS subject_type, f.predicate, f.predicate_raw, f.family,
      f.object_id, o.name AS object_name, o.type AS object_type, f.value, f.fact_text, f.memory_kind, f.importance,
      f.confidence, f.decay_class, f.last_confirmed_at, f.valid_from, f.invalid_at, f.recorded_at, f.expired_at,
      f.invalidated_by, f.source, f.sensitivity, f.forgotten_at,
      ${factEpisodeIdsSql(ns, live('e'))} AS episode_ids
    FROM fact f JOIN entity s ON s.id = f.subject_id LEFT JOIN entity o ON o.id = f.object_id
    WHERE ${factFilter(p, scope)} AND ${live('s')} AND (o.id IS NULL OR ${live('o')}) AND (${query.where(p)})
    ORDER BY ${rank} DESC, f.last_confirmed_at DESC, f.id
    LIMIT ${p.add(query.limit)}`;
  const { rows } = await db.query<FactRow>(sql, p.values);
  const at2 = referenceTime(scope);
  return rows.map((r) => toFactView(r, at2));
}
