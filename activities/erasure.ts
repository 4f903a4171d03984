import { Context } from '@temporalio/activity';
import type { EraseBatchInput, EraseBatchResult, ErasureSummary, ErasureTarget, FinishErasureInput } from '../core/governance/contracts.js';
import { beginErasure, failErasure, finishErasure } from '../core/governance/erasureRecord.js';
import { eraseBatch } from '../core/governance/erasureSteps.js';
import type { ActivityDeps } from './deps.js';

function currentRun(): { workflowId: string | null; runId: string | null } {
  try {
    const { workflowExecution } = Context.current().info;
    return { workflowId: workflowExecution?.workflowId ?? null, runId: workflowExecution?.runId ?? null };
  } catch {
    return { workflowId: null, runId: null }; // called outside an activity
  }
}

/**
 * The `eraseUser` workflow's activities. Inputs and outputs are ids and
 * counts only (they are kept in the workflow's history). Activity names are
 * stored in workflow histories: do not rename them.
 */
export function createErasureActivities(deps: ActivityDeps) {
  return {
    async beginErasure(input: ErasureTarget & { requestedBy?: string }): Promise<ErasureSummary> {
      return beginErasure(deps.pool, input, input.requestedBy ?? null);
    },

    /** One batch of one step (core/governance/erasureSteps.ts); idempotent. */
    async eraseUserBatch(input: EraseBatchInput): Promise<EraseBatchResult> {
      try {
        Context.current().heartbeat();
      } catch {
        // outside an activity
      }
      return eraseBatch(deps, input, input.step, input.limit);
    },

    async finishErasure(input: FinishErasureInput): Promise<ErasureSummary> {
      return finishErasure(deps, input, currentRun());
    },

    async failErasure(input: ErasureTarget & { error: string }): Promise<void> {
      await failErasure(deps.pool, input, input.error);
    },
  };
}
