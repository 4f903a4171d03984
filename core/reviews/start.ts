import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Deps } from '../deps.js';
import { withDeadline } from '../temporal/client.js';

/** The workflow type that waits for a person's decision on one review item (stored in history: never rename). */
export const REVIEW_WORKFLOW_TYPE = 'review';

export function reviewWorkflowId(reviewId: string): string {
  return `review:${reviewId}`;
}

/** The review workflow's input (lives in history: extend only with optional fields). */
export interface ReviewWorkflowInput {
  reviewId: string;
}

/**
 * Starts the `review:<id>` workflow of each open review item and records its id
 * on the row. Idempotent (one workflow id per item; a running or finished one is
 * left as is). Callers run it after the items are committed; whatever fails here
 * (Temporal down) is started later by the reconcile schedule, which calls this
 * for open items whose `workflow_id` is still NULL.
 */
export async function startReviewWorkflows(deps: Pick<Deps, 'pool' | 'temporal' | 'logger'>, reviewIds: string[]): Promise<number> {
  let started = 0;
  for (const reviewId of reviewIds) {
    const workflowId = reviewWorkflowId(reviewId);
    try {
      await withDeadline(deps.temporal, 5_000, () =>
        deps.temporal.client.workflow.start(REVIEW_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: deps.temporal.taskQueue,
          args: [{ reviewId } satisfies ReviewWorkflowInput],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        }),
      );
      started++;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
        deps.logger.warn({ err, reviewId, workflowId }, 'could not start review workflow; reconcile will retry');
        continue;
      }
    }
    await deps.pool.query('UPDATE review_item SET workflow_id = $2 WHERE id = $1 AND workflow_id IS NULL', [reviewId, workflowId]);
  }
  return started;
}
