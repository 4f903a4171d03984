import type { PoolClient } from '../core/db/pool.js';
import type { TimedFact, WritePlan } from '../core/ingest/contracts.js';
import { emptyWritePlan, planWrites } from '../core/ingest/contradiction.js';
import { sameObject } from '../core/ingest/dedup.js';
import { ACTIVE_FACT, EXISTING_FACT_COLUMNS, toRef, type ExistingRow } from './existingFacts.js';

export type Settlement =
  /** The statement is in the graph already (committed meanwhile by a concurrent episode): confirm it. */
  | { kind: 'confirm'; factId: string }
  /** Insert it; `plan` holds what arbitration against values committed meanwhile adds (a review: insert it unbelieved). */
  | { kind: 'insert'; plan: WritePlan }
  /** Arbitration against a value committed meanwhile replaced or rejected it: nothing to insert. */
  | { kind: 'absorbed'; plan: WritePlan };

/**
 * Stages 4–6 judged the episode against the graph as it was when they ran, and
 * against its own provisional ids for entities it saw as new. By commit time,
 * under the slot's lock, concurrent episodes may have committed the same
 * statement (perhaps under the real id of an entity this episode thought new)
 * or another value of a single-valued slot. This re-judges one insert against
 * the slot as it is now, with real ids, by the rules of stages 4 and 6
 * (`sameObject`, `planWrites`).
 */
export async function settleInsert(
  tx: PoolClient,
  input: {
    namespace: string;
    fact: TimedFact;
    subjectId: string;
    objectId: string | null;
    /** Facts the episode's plan already ends or argues with, or inserted itself: decided, not news. */
    alreadyDecided: Set<string>;
    occurredAt: string;
  },
): Promise<Settlement> {
  const { fact, subjectId, objectId } = input;
  if (fact.candidate.negated) return { kind: 'insert', plan: emptyWritePlan() };
  const { rows } = await tx.query<ExistingRow>(
    `SELECT ${EXISTING_FACT_COLUMNS} FROM fact WHERE namespace = $1 AND subject_id = $2 AND predicate = $3 AND ${ACTIVE_FACT} ORDER BY id`,
    [input.namespace, subjectId, fact.candidate.predicate],
  );
  const slot = rows.map(toRef);
  const same = slot.find((e) => sameObject({ objectId, value: fact.candidate.value }, e));
  if (same) return { kind: 'confirm', factId: same.id };
  const news = slot.filter((e) => !input.alreadyDecided.has(e.id));
  if (!fact.singleValued || news.length === 0) return { kind: 'insert', plan: emptyWritePlan() };
  const plan = planWrites([{ ...fact, subjectId, objectId, decision: { kind: 'new' } }], news, input.occurredAt);
  const inserted = plan.inserts.some((x) => x.id === fact.id);
  plan.inserts = [];
  return inserted ? { kind: 'insert', plan } : { kind: 'absorbed', plan };
}
