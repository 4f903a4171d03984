import type { ResolvedEntity, WritePlan } from './contracts.js';

export interface LimitedWrite {
  entities: ResolvedEntity[];
  plan: WritePlan;
  dropped: { entities: number; facts: number; updates: number };
}

/**
 * Caps the graph writes of one episode at `max` (DESIGN §4): updates to known
 * facts first (invalidations, refinements, confirmations), then new facts with
 * the new entities they need, then the remaining new entities. The rest is
 * dropped and reported so the caller can audit it.
 */
export function applyWriteLimit(entities: ResolvedEntity[], plan: WritePlan, max: number): LimitedWrite {
  let budget = max;
  const take = <T>(items: T[]): T[] => {
    const kept = items.slice(0, Math.max(0, budget));
    budget -= kept.length;
    return kept;
  };
  const invalidations = take(plan.invalidations);
  const refinements = take(plan.refinements);
  const confirmations = take(plan.confirmations);
  const updatesDropped =
    plan.invalidations.length - invalidations.length + plan.refinements.length - refinements.length + plan.confirmations.length - confirmations.length;

  const newEntities = new Map(entities.filter((e) => e.isNew).map((e) => [e.id, e]));
  const keptEntityIds = new Set<string>();
  const inserts: WritePlan['inserts'] = [];
  for (const fact of plan.inserts) {
    const needed = [fact.subjectId, fact.objectId].filter((id): id is string => !!id && newEntities.has(id) && !keptEntityIds.has(id));
    if (budget < 1 + needed.length) continue;
    budget -= 1 + needed.length;
    needed.forEach((id) => keptEntityIds.add(id));
    inserts.push(fact);
  }
  for (const e of newEntities.values()) {
    if (keptEntityIds.has(e.id) || budget < 1) continue;
    budget -= 1;
    keptEntityIds.add(e.id);
  }
  const keptInsertIds = new Set(inserts.map((f) => f.id));
  return {
    entities: entities.filter((e) => !e.isNew || keptEntityIds.has(e.id)),
    plan: {
      inserts,
      invalidations: invalidations.map((i) => (i.invalidatedBy && !keptInsertIds.has(i.invalidatedBy) && plan.inserts.some((f) => f.id === i.invalidatedBy) ? { ...i, invalidatedBy: null } : i)),
      refinements,
      confirmations,
      rejections: plan.rejections,
      reviews: plan.reviews.filter((r) => keptInsertIds.has(r.candidateId)),
    },
    dropped: {
      entities: newEntities.size - [...keptEntityIds].length,
      facts: plan.inserts.length - inserts.length,
      updates: updatesDropped,
    },
  };
}
