import type { ExistingFactRef } from '../core/ingest/contracts.js';

/** A fact that holds now and is believed: what stages 4–6 and the commit compare candidates with. */
export const ACTIVE_FACT = 'invalid_at IS NULL AND expired_at IS NULL AND forgotten_at IS NULL';

/** The columns `toRef` reads (with `embedding` as text or NULL, selected by the caller). */
export const EXISTING_FACT_COLUMNS = 'id, subject_id, predicate, object_id, value, valid_from, invalid_at, confidence, fact_text';

export interface ExistingRow {
  id: string;
  subject_id: string;
  predicate: string;
  object_id: string | null;
  value: string | null;
  valid_from: Date | null;
  invalid_at: Date | null;
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
    confidence: Number(row.confidence),
    factText: row.fact_text,
  };
}
