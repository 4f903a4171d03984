import type { Queryable } from '../core/db/pool.js';
import type { BoundFact } from '../core/ingest/contracts.js';
import { statedValidityOf } from '../core/sources/document.js';

/**
 * fact-dedup for statements a structured source dates with an end (a calendar
 * event's attendees): the stored fact already ended in world time, so the
 * active-fact comparison cannot see it. The same triple with the same stated
 * window, still believed, is the same statement: a duplicate to confirm, so
 * an event sent twice reinforces its facts instead of repeating them.
 * Single-valued slots are left to the contradiction stage's chains, which see history.
 */
export async function matchStatedWindows(db: Queryable, namespace: string, facts: BoundFact[]): Promise<BoundFact[]> {
  const windows = facts
    .map((f, idx) => ({ f, idx, stated: statedValidityOf(f.candidate) }))
    .filter(({ f, stated }) => f.decision.kind === 'new' && !f.singleValued && !f.candidate.negated && stated?.invalid_at);
  if (windows.length === 0) return facts;
  const { rows } = await db.query<{ idx: number; id: string }>(
    `SELECT c.idx, m.id
       FROM jsonb_to_recordset($2::jsonb) AS c(idx int, subject_id uuid, predicate text, object_id uuid, value text,
                                              valid_from timestamptz, invalid_at timestamptz)
       CROSS JOIN LATERAL (
         SELECT f.id FROM fact f
          WHERE f.namespace = $1 AND f.subject_id = c.subject_id AND f.predicate = c.predicate
            AND f.object_id IS NOT DISTINCT FROM c.object_id AND (c.object_id IS NOT NULL OR f.value = c.value)
            AND f.valid_from IS NOT DISTINCT FROM c.valid_from AND f.invalid_at = c.invalid_at
            AND f.expired_at IS NULL AND f.forgotten_at IS NULL
          ORDER BY f.recorded_at LIMIT 1) AS m`,
    [
      namespace,
      JSON.stringify(
        windows.map(({ f, idx, stated }) => ({
          idx,
          subject_id: f.subjectId,
          predicate: f.candidate.predicate,
          object_id: f.objectId,
          value: f.objectId ? null : f.candidate.value,
          valid_from: stated!.valid_from,
          invalid_at: stated!.invalid_at,
        })),
      ),
    ],
  );
  const matched = new Map(rows.map((r) => [r.idx, r.id]));
  return facts.map((f, idx) => (matched.has(idx) ? { ...f, decision: { kind: 'duplicate' as const, factId: matched.get(idx)! } } : f));
}
