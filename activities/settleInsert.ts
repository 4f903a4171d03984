import type { PoolClient } from '../core/db/pool.js';
import type { EpisodeSnapshot, TimedFact, WritePlan } from '../core/ingest/contracts.js';
import { planWrites } from '../core/ingest/contradiction.js';
import { sameObject } from '../core/ingest/dedup.js';
import { ACTIVE_FACT, EXISTING_FACT_COLUMNS, loadChains, toRef, type ExistingRow } from './existingFacts.js';

/**
 * Stages 4–6 judged the episode against the graph as it was when they ran, and
 * against its own provisional ids for entities it saw as new. By commit time,
 * under the slots' locks, concurrent episodes may have committed the same
 * statement (perhaps under the real id of an entity this episode thought new)
 * or other values of a single-valued slot. This re-plans the episode's facts,
 * with real ids, against the graph as it is now, by the rules of stages 4 and
 * 6: single-valued slots through their whole chain (`planWrites`), other
 * statements already committed meanwhile become confirmations.
 */
export async function settlePlan(
  tx: PoolClient,
  episode: EpisodeSnapshot,
  stagePlan: WritePlan,
  facts: TimedFact[],
  entityId: (id: string | null) => string | null,
): Promise<WritePlan> {
  const bound = facts.map((f) => ({ ...f, subjectId: entityId(f.subjectId)!, objectId: entityId(f.objectId) }));
  const fresh = bound.filter((f) => !f.singleValued && !f.candidate.negated && f.decision.kind === 'new');
  const committedMeanwhile = await activeStatements(tx, episode.namespace, fresh);
  const settled = bound.map((f) => {
    if (f.singleValued || f.candidate.negated || f.decision.kind !== 'new') return f;
    const same = committedMeanwhile.find(
      (e) => e.subjectId === f.subjectId && e.predicate === f.candidate.predicate && sameObject({ objectId: f.objectId, value: f.candidate.value }, e),
    );
    return same ? { ...f, decision: { kind: 'duplicate' as const, factId: same.id } } : f;
  });
  const plan = planWrites(settled, await loadChains(tx, episode.namespace, settled), episode.occurredAt);
  if (stagePlan.facts) return plan;
  // A plan recorded before history-order carries only its inserts: keep what it decided about the rest.
  const inserted = new Set(facts.map((f) => f.id));
  plan.confirmations.push(...stagePlan.confirmations.filter((c) => !inserted.has(c.candidateId)));
  plan.refinements.push(...stagePlan.refinements.filter((r) => !inserted.has(r.candidateId)));
  plan.invalidations.push(...stagePlan.invalidations.filter((i) => !inserted.has(i.candidateId)));
  return plan;
}

async function activeStatements(tx: PoolClient, namespace: string, facts: TimedFact[]) {
  if (facts.length === 0) return [];
  const { rows } = await tx.query<ExistingRow>(
    `SELECT ${EXISTING_FACT_COLUMNS} FROM fact
      WHERE namespace = $1 AND (subject_id, predicate) IN (SELECT * FROM unnest($2::uuid[], $3::text[])) AND ${ACTIVE_FACT}`,
    [namespace, facts.map((f) => f.subjectId), facts.map((f) => f.candidate.predicate)],
  );
  return rows.map(toRef);
}
