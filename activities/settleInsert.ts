import type { PoolClient } from '../core/db/pool.js';
import type { ExistingFactRef, TimedFact, WritePlan } from '../core/ingest/contracts.js';
import { planWrites } from '../core/ingest/contradiction.js';

/** A fact that holds now and is believed: what stages 4–6 and the commit compare with. */
export const ACTIVE_FACT = 'invalid_at IS NULL AND expired_at IS NULL AND forgotten_at IS NULL';

export type Settlement =
  /** The statement is in the graph already (committed meanwhile by a concurrent episode): confirm it. */
  | { kind: 'confirm'; factId: string }
  /** Insert it; `plan` holds what arbitration against values committed meanwhile adds (a review: insert it unbelieved). */
  | { kind: 'insert'; plan: WritePlan }
  /** Arbitration against a value committed meanwhile replaced or rejected it: nothing to insert. */
  | { kind: 'absorbed'; plan: WritePlan };

interface SlotRow {
  id: string;
  object_id: string | null;
  value: string | null;
  valid_from: Date | null;
  confidence: number;
  fact_text: string;
}

/**
 * Stages 4–6 judged the episode against the graph as it was when they ran, and
 * against its own provisional ids for entities it saw as new. By commit time,
 * under the slot's lock, concurrent episodes may have committed the same
 * statement (perhaps under the real id of an entity this episode thought new)
 * or another value of a single-valued slot. This re-judges one insert against
 * the slot as it is now, with real ids: the same statement is confirmed, a
 * value committed meanwhile goes through the same arbitration as stage 6.
 */
export async function settleInsert(
  tx: PoolClient,
  input: {
    namespace: string;
    fact: TimedFact;
    subjectId: string;
    objectId: string | null;
    /** Facts the episode's plan already ends or argues with: decided, not news. */
    alreadyDecided: Set<string>;
    occurredAt: string;
  },
): Promise<Settlement> {
  const { fact: f, subjectId, objectId } = input;
  const c = f.candidate;
  const empty = (): WritePlan => ({ inserts: [], confirmations: [], refinements: [], invalidations: [], rejections: [], reviews: [] });
  if (c.negated) return { kind: 'insert', plan: empty() };
  const { rows } = await tx.query<SlotRow>(
    `SELECT id, object_id, value, valid_from, confidence, fact_text FROM fact
      WHERE namespace = $1 AND subject_id = $2 AND predicate = $3 AND ${ACTIVE_FACT}
        AND ($4::boolean OR object_id = $5 OR (object_id IS NULL AND $5::uuid IS NULL AND lower(value) = lower($6)))
      ORDER BY id`,
    [input.namespace, subjectId, c.predicate, f.singleValued, objectId, c.value],
  );
  const same = rows.find((r) => (objectId ? r.object_id === objectId : r.object_id === null && r.value?.toLowerCase() === c.value?.toLowerCase()));
  if (same) return { kind: 'confirm', factId: same.id };
  const news: ExistingFactRef[] = rows
    .filter((r) => !input.alreadyDecided.has(r.id))
    .map((r) => ({
      id: r.id,
      subjectId,
      predicate: c.predicate,
      objectId: r.object_id,
      value: r.value,
      validFrom: r.valid_from?.toISOString() ?? null,
      invalidAt: null,
      confidence: Number(r.confidence),
      factText: r.fact_text,
    }));
  if (!f.singleValued || news.length === 0) return { kind: 'insert', plan: empty() };
  // Arbitrate with the same rules as stage 6, comparing real ids.
  const plan = planWrites([{ ...f, subjectId, objectId, decision: { kind: 'new' } }], news, input.occurredAt);
  const inserted = plan.inserts.some((x) => x.id === f.id);
  plan.inserts = [];
  return inserted ? { kind: 'insert', plan } : { kind: 'absorbed', plan };
}
