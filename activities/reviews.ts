import { Context } from '@temporalio/activity';
import { applyReviewDecision, type ApplyDecisionInput, type ApplyDecisionResult } from '../core/reviews/apply.js';
import type { ReviewSubject } from '../core/reviews/contracts.js';
import { markEscalated, notifyEscalation } from '../core/reviews/escalate.js';
import { getReview } from '../core/reviews/read.js';
import { escalates } from '../core/reviews/reviewState.js';
import type { ActivityDeps } from './deps.js';

function runOf(): { workflowId?: string; runId?: string } {
  try {
    const run = Context.current().info.workflowExecution;
    return run ? { workflowId: run.workflowId, runId: run.runId } : {};
  } catch {
    return {};
  }
}

/** The review workflow's activities (names are stored in history: do not rename). */
export function createReviewActivities(deps: ActivityDeps) {
  return {
    /** What the workflow needs to validate decisions and time its escalation; null when the item does not exist. */
    async loadReviewItem(input: { reviewId: string }): Promise<ReviewSubject | null> {
      const item = await getReview(deps.pool, input.reviewId, null);
      if (!item) return null;
      return {
        reviewId: item.id,
        namespace: item.namespace,
        kind: item.kind,
        status: item.status,
        factIds: item.fact_ids,
        createdAt: item.created_at,
        escalatedAt: item.escalated_at,
        escalateAfterMs: escalates(item.kind) ? deps.config.REVIEW_ESCALATE_AFTER : null,
      };
    },

    /** Flags the item escalated (once) with an audit row. */
    async escalateReview(input: { reviewId: string }): Promise<{ escalated: boolean; stillOpen: boolean }> {
      const { escalated, review } = await markEscalated(deps, { reviewId: input.reviewId, ...runOf() });
      // Closed elsewhere meanwhile (e.g. the history re-chain made a conflict moot): nothing left to wait for.
      return { escalated, stillOpen: review?.status === 'open' };
    },

    /** POSTs the escalated item to REVIEW_WEBHOOK_URL, if set. */
    async notifyReviewWebhook(input: { reviewId: string }): Promise<{ sent: boolean; status: number | null }> {
      return notifyEscalation(deps, input.reviewId);
    },

    /** Applies the accepted decision once (idempotent: a retry finds the item decided). */
    async applyReviewDecision(input: ApplyDecisionInput): Promise<ApplyDecisionResult> {
      return applyReviewDecision(deps, input);
    },
  };
}
