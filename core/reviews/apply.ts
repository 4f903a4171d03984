import { writeAudit, type AuditCause, type AuditEntry } from '../audit/auditLog.js';
import { withTransaction, type PoolClient } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { resolveConflict } from './conflict.js';
import { INFORMATIONAL_KINDS, type AcceptedDecision } from './contracts.js';
import { mergeEntities, mergeObstacle, mergePair, rememberRejectedMerge } from './merge.js';
import { getReview, type ReviewView } from './read.js';
import { applyTaskBudgetDecision, type TaskBudgetOutcome } from './taskBudget.js';

export interface ApplyDecisionInput extends AcceptedDecision {
  reviewId: string;
  workflowId?: string | null;
  runId?: string | null;
}

export interface ApplyDecisionResult {
  alreadyDecided: boolean;
  applied: boolean;
  resolution: Record<string, unknown> | null;
}

type Effect = { applied: boolean; resolution: Record<string, unknown>; audit: AuditEntry[] };

/** What a decision does to the graph, inside the item's transaction. */
async function effectOf(tx: PoolClient, item: ReviewView, input: ApplyDecisionInput, now: Date, taskOutcome: TaskBudgetOutcome | null): Promise<Effect> {
  if (item.kind === 'merge') {
    const pair = mergePair(item);
    if (!pair) return { applied: false, resolution: { reason: 'the proposal does not name two entities' }, audit: [] };
    if (input.decision === 'reject') {
      const audit = await rememberRejectedMerge(tx, { namespace: item.namespace, a: pair.survivorId, b: pair.loserId, reviewId: item.id });
      return { applied: true, resolution: { merged: false, ...pair }, audit };
    }
    const obstacle = await mergeObstacle(tx, item.namespace, pair.survivorId, pair.loserId, true);
    if (obstacle) return { applied: false, resolution: { merged: false, reason: obstacle }, audit: [] };
    const { result, audit } = await mergeEntities(tx, { namespace: item.namespace, ...pair, reviewId: item.id });
    return {
      applied: true,
      resolution: { merged: true, survivor_id: pair.survivorId, loser_id: pair.loserId, moved_facts: result.movedFacts, confirmed_facts: result.confirmed, aliases: result.aliases },
      audit,
    };
  }
  if (item.kind === 'conflict') {
    const keep = input.keepFactId;
    const other = item.fact_ids.find((id) => id !== keep);
    if (!keep || !other) return { applied: false, resolution: { reason: 'no fact to keep' }, audit: [] };
    const out = await resolveConflict(tx, { namespace: item.namespace, keepFactId: keep, otherFactId: other, reviewId: item.id, now });
    if ('obstacle' in out) return { applied: false, resolution: { reason: out.obstacle }, audit: [] };
    return { applied: true, resolution: { kept_fact_id: out.resolution.keptFactId, invalidated_fact_id: out.resolution.invalidatedFactId, invalid_at: out.resolution.invalidAt }, audit: out.audit };
  }
  if (item.kind === 'task_budget' && taskOutcome) {
    const { applied, ...resolution } = taskOutcome;
    return { applied, resolution, audit: [] };
  }
  return { applied: true, resolution: { acknowledged: true }, audit: [] };
}

/**
 * Applies a decision the review workflow accepted, once: the graph change (a
 * merge, a merge rejection, a conflict's resolution) and the item's
 * `decided` status in one transaction, audited; task-budget decisions signal
 * the task first (idempotent signals). A retry finds the item decided and
 * changes nothing. A decision that can no longer take effect (an entity was
 * forgotten meanwhile) still closes the item, with the reason in `resolution`.
 */
export async function applyReviewDecision(deps: Pick<Deps, 'pool' | 'temporal' | 'now'>, input: ApplyDecisionInput): Promise<ApplyDecisionResult> {
  const before = await getReview(deps.pool, input.reviewId, null);
  if (!before) return { alreadyDecided: true, applied: false, resolution: null };
  if (before.status !== 'open') return { alreadyDecided: true, applied: false, resolution: before.resolution as Record<string, unknown> | null };
  const taskOutcome =
    before.kind === 'task_budget' && input.decision !== 'resolve' ? await applyTaskBudgetDecision(deps, before, input.decision) : null;
  const now = deps.now();
  return withTransaction(deps.pool, async (tx) => {
    const item = await getReview(tx, input.reviewId, null, { forUpdate: true });
    if (!item || item.status !== 'open') return { alreadyDecided: true, applied: false, resolution: null };
    const effect = await effectOf(tx, item, input, now, taskOutcome);
    const resolution = { ...effect.resolution, applied: effect.applied, ...(input.note ? { note: input.note } : {}), ...(INFORMATIONAL_KINDS.includes(item.kind) ? { informational: true } : {}) };
    await tx.query(
      `UPDATE review_item SET status = 'decided', decision = $2, decided_at = $3, decided_by = $4, resolution = $5, resolved_at = $3, updated_at = now()
        WHERE id = $1`,
      [item.id, input.decision, now, input.by, JSON.stringify(resolution)],
    );
    const cause: AuditCause = { namespace: item.namespace, actor: input.by, requestId: input.requestId, workflowId: input.workflowId, runId: input.runId, episodeId: item.episode_id };
    await writeAudit(tx, cause, [
      ...effect.audit,
      { action: 'review.decided', targetType: 'review_item', targetId: item.id, before: { status: item.status }, after: { status: 'decided', decision: input.decision, kind: item.kind, resolution } },
    ]);
    return { alreadyDecided: false, applied: effect.applied, resolution };
  });
}
