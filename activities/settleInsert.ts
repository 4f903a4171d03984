import type { PoolClient } from '../core/db/pool.js';
import type { EpisodeSnapshot, ExistingFactRef, TimedFact, WritePlan } from '../core/ingest/contracts.js';
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
  const fresh = bound.filter((f) => !f.singleValued && f.decision.kind === 'new');
  const { active, ended } = await storedStatements(tx, episode.namespace, fresh);
  const sameStatement = (f: TimedFact) => (e: ExistingFactRef) =>
    e.subjectId === f.subjectId && e.predicate === f.candidate.predicate && sameObject({ objectId: f.objectId, value: f.candidate.value }, e);
  const settled = bound.map((f) => {
    if (f.singleValued || f.decision.kind !== 'new') return f;
    const same = active.find(sameStatement(f));
    if (f.candidate.negated) {
      // Said to have ended ("I'm back from Tokyo") once the statement it ends is stored (committed meanwhile, or told
      // after it though it happened before): end that one, unless it starts only after this end.
      const endsAt = Date.parse(f.invalidAt ?? episode.occurredAt);
      return same && (same.validFrom === null || Date.parse(same.validFrom) < endsAt) ? { ...f, decision: { kind: 'ends' as const, factId: same.id } } : f;
    }
    if (same) return { ...f, decision: { kind: 'duplicate' as const, factId: same.id } };
    // Its end is stored already (told first: imports, parallel writes): a statement from before that end holds until then.
    const start = Date.parse(f.validFrom ?? episode.occurredAt);
    const ends = ended.filter(sameStatement(f)).map((e) => Date.parse(e.invalidAt!)).filter((at) => at > start);
    if (!ends.length) return f;
    const end = Math.min(...ends);
    return f.invalidAt !== null && Date.parse(f.invalidAt) <= end ? f : { ...f, invalidAt: new Date(end).toISOString() };
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

/**
 * The stored statements of the facts' subjects and predicates: the active ones, and those stored as ended with no
 * known start ("no longer traveling to Tokyo", said before anything it could end was stored) or as a denial (the
 * instant "I don't own a Tesla" was said: `storedAsDenial`).
 */
async function storedStatements(tx: PoolClient, namespace: string, facts: TimedFact[]): Promise<{ active: ExistingFactRef[]; ended: ExistingFactRef[] }> {
  if (facts.length === 0) return { active: [], ended: [] };
  const { rows } = await tx.query<ExistingRow>(
    `SELECT ${EXISTING_FACT_COLUMNS} FROM fact
      WHERE namespace = $1 AND (subject_id, predicate) IN (SELECT * FROM unnest($2::uuid[], $3::text[]))
        AND (${ACTIVE_FACT} OR ((valid_from IS NULL OR valid_from = invalid_at) AND invalid_at IS NOT NULL AND expired_at IS NULL AND forgotten_at IS NULL))`,
    [namespace, facts.map((f) => f.subjectId), facts.map((f) => f.candidate.predicate)],
  );
  const refs = rows.map(toRef);
  return { active: refs.filter((r) => r.invalidAt === null), ended: refs.filter((r) => r.invalidAt !== null) };
}
