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
/** Starts in flight at once: a dream run may propose dozens of merges, and each start is a round trip. */
const START_CONCURRENCY = 8;

export async function startReviewWorkflows(deps: Pick<Deps, 'pool' | 'temporal' | 'logger'>, reviewIds: string[]): Promise<number> {
  let started = 0;
  const recorded: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < reviewIds.length) {
      const reviewId = reviewIds[next++];
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
      recorded.push(reviewId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, reviewIds.length) }, lane));
  if (recorded.length) {
    // One statement for the lot; the workflow id is derived from the item id.
    await deps.pool.query(
      `UPDATE review_item SET workflow_id = 'review:' || id::text WHERE id = ANY($1::uuid[]) AND workflow_id IS NULL`,
      [recorded],
    );
  }
  return started;
}
