import type { ExistingFactRef, TimedFact, WritePlan } from './contracts.js';
import { sameObject } from './dedup.js';

const time = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

/** A plan that writes nothing. */
export function emptyWritePlan(): WritePlan {
  return { inserts: [], confirmations: [], refinements: [], invalidations: [], rejections: [], reviews: [] };
}

/**
 * Stage 6 as a pure function: turns the episode's timed, deduplicated facts
 * into a write plan against the subject's currently active facts.
 *
 * Single-valued predicates (lives_in, works_at, costs, …): a value with newer
 * world time supersedes the older one (`invalid_at` = successor's
 * `valid_from`). On a tie, or a backfill (an open-ended value older than the
 * current one), confidence arbitrates: higher replaces the current value in
 * place (audited), lower is rejected, equal waits for an operator.
 */
export function planWrites(facts: TimedFact[], activeSingleValued: ExistingFactRef[], occurredAt: string): WritePlan {
  const plan = emptyWritePlan();
  const invalidated = new Set<string>();
  const asserted = facts.filter((f) => !f.candidate.negated);
  const negated = facts.filter((f) => f.candidate.negated);

  /** This episode's own new value for the slot, which succeeds whatever it ends. */
  const successorOf = (f: TimedFact): TimedFact | undefined =>
    f.singleValued
      ? asserted.find(
          (a) => a.decision.kind === 'new' && a.subjectId === f.subjectId && a.candidate.predicate === f.candidate.predicate,
        )
      : undefined;

  for (const f of asserted) {
    const d = f.decision;
    if (d.kind === 'duplicate') {
      plan.confirmations.push({ factId: d.factId, candidateId: f.id });
      continue;
    }
    if (d.kind === 'refinement') {
      plan.refinements.push({
        factId: d.factId,
        candidateId: f.id,
        factText: f.candidate.fact_text,
        value: f.candidate.value,
        objectId: f.objectId,
        confidence: f.candidate.confidence,
        reason: 'refinement: same statement with more detail',
      });
      continue;
    }
    if (d.kind !== 'new') continue;
    if (!f.singleValued) {
      plan.inserts.push(f);
      continue;
    }
    let keep = true;
    const conflicts = activeSingleValued.filter(
      (e) =>
        e.subjectId === f.subjectId &&
        e.predicate === f.candidate.predicate &&
        !invalidated.has(e.id) &&
        !sameObject({ objectId: f.objectId, value: f.candidate.value }, e),
    );
    for (const e of conflicts) {
      const newFrom = time(f.validFrom) ?? Date.parse(occurredAt);
      const oldFrom = time(e.validFrom);
      const newEnd = time(f.invalidAt);
      if (oldFrom !== null && newEnd !== null && newEnd <= oldFrom) continue; // pure history: no overlap
      if (oldFrom === null || newFrom > oldFrom) {
        plan.invalidations.push({ factId: e.id, invalidAt: new Date(newFrom).toISOString(), invalidatedBy: f.id, candidateId: f.id });
        invalidated.add(e.id);
        continue;
      }
      // A tie in world time, or a backfill: confidence arbitrates.
      const why = newFrom === oldFrom ? 'same valid time' : 'backfill older than the current value';
      if (f.candidate.confidence > e.confidence) {
        plan.refinements.push({
          factId: e.id,
          candidateId: f.id,
          factText: f.candidate.fact_text,
          value: f.candidate.value,
          objectId: f.objectId,
          confidence: f.candidate.confidence,
          reason: `contradiction (${why}): higher confidence ${f.candidate.confidence} > ${e.confidence} replaces the value`,
        });
      } else if (f.candidate.confidence < e.confidence) {
        plan.rejections.push({
          candidateId: f.id,
          againstFactId: e.id,
          reason: `contradiction (${why}): confidence ${f.candidate.confidence} < ${e.confidence} of the current value`,
        });
      } else {
        plan.reviews.push({ candidateId: f.id, againstFactId: e.id, reason: `contradiction (${why}) with equal confidence ${e.confidence}` });
        plan.inserts.push(f);
      }
      keep = false;
      break;
    }
    if (keep) plan.inserts.push(f);
  }

  for (const f of negated) {
    const d = f.decision;
    const successor = successorOf(f);
    if (d.kind === 'ends') {
      if (invalidated.has(d.factId)) {
        plan.confirmations.push({ factId: d.factId, candidateId: f.id });
        continue;
      }
      const end = successor?.validFrom ?? f.invalidAt ?? occurredAt;
      plan.invalidations.push({ factId: d.factId, invalidAt: end, invalidatedBy: successor?.id ?? null, candidateId: f.id });
      invalidated.add(d.factId);
    } else if (d.kind === 'new') {
      // Nothing to end: keep it as history ("left Google last May").
      plan.inserts.push({
        ...f,
        validFrom: null,
        invalidAt: successor?.validFrom ?? f.invalidAt ?? occurredAt,
        invalidatedBy: successor?.id ?? null,
      });
    }
  }
  return plan;
}
