import type { Queryable } from '../core/db/pool.js';
import type { ExistingFactRef, TimedFact } from '../core/ingest/contracts.js';

/** A fact that holds now and is believed: what stages 4–6 and the commit compare candidates with. */
export const ACTIVE_FACT = 'invalid_at IS NULL AND expired_at IS NULL AND forgotten_at IS NULL';

/**
 * A fact that belongs to its slot's world-time chain: believed, current or
 * history (not forgotten, not retracted — expired with no world-time end, as a
 * conflict awaiting review is).
 */
export const CHAIN_FACT = 'forgotten_at IS NULL AND NOT (expired_at IS NOT NULL AND invalid_at IS NULL)';

/** The columns `toRef` reads (with `embedding` as text or NULL, selected by the caller). */
export const EXISTING_FACT_COLUMNS = `id, subject_id, predicate, object_id, value, valid_from, invalid_at, invalidated_by, confidence, fact_text, properties->'stated_from' AS stated_from`;

export interface ExistingRow {
  id: string;
  subject_id: string;
  predicate: string;
  object_id: string | null;
  value: string | null;
  valid_from: Date | null;
  invalid_at: Date | null;
  invalidated_by: string | null;
  /** JSON array of ISO instants, or null. */
  stated_from: unknown;
  confidence: number;
  fact_text: string;
  embedding?: string | null;
}

export function toRef(row: ExistingRow): ExistingFactRef {
  return {
    id: row.id,
    subjectId: row.subject_id,
    predicate: row.predicate,
    objectId: row.object_id,
    value: row.value,
    validFrom: row.valid_from?.toISOString() ?? null,
    invalidAt: row.invalid_at?.toISOString() ?? null,
    invalidatedBy: row.invalidated_by,
    statedFrom: Array.isArray(row.stated_from) ? row.stated_from.filter((x): x is string => typeof x === 'string') : null,
    confidence: Number(row.confidence),
    factText: row.fact_text,
  };
}

/** SQL reading the chains of (subject, predicate) slots: `$1` namespace, `$2` subject ids, `$3` predicates (paired by position). */
export const CHAIN_QUERY = `SELECT ${EXISTING_FACT_COLUMNS} FROM fact
  WHERE namespace = $1 AND (subject_id, predicate) IN (SELECT * FROM unnest($2::uuid[], $3::text[])) AND ${CHAIN_FACT}
  ORDER BY id`;

/** The stored chains of the single-valued slots `facts` speak about (with the ids they carry). */
export async function loadChains(db: Queryable, namespace: string, facts: Array<Pick<TimedFact, 'singleValued' | 'subjectId' | 'candidate'>>): Promise<ExistingFactRef[]> {
  const slots = new Map(facts.filter((f) => f.singleValued).map((f) => [`${f.subjectId}|${f.candidate.predicate}`, f]));
  if (slots.size === 0) return [];
  const { rows } = await db.query<ExistingRow>(CHAIN_QUERY, [namespace, [...slots.values()].map((f) => f.subjectId), [...slots.values()].map((f) => f.candidate.predicate)]);
  return rows.map(toRef);
}
