import { ApplicationFailure } from '@temporalio/activity';
import { startReviewWorkflows } from '../core/reviews/start.js';
import { getSessionView } from '../core/sessions/read.js';
import { openTaskBudgetReview, type BudgetReviewRequest } from '../core/tasks/budgetReview.js';
import { beginBurstRow, finishBurstRow } from '../core/tasks/burst.js';
import type { BurstResult, TaskProgress, TaskRecord, TaskSchedule } from '../core/tasks/contracts.js';
import { nextBurstAt } from '../core/tasks/schedule.js';
import { saveTaskRecord } from '../core/tasks/store.js';
import { callTaskWebhook } from '../core/tasks/webhook.js';
import { currentWorkflow } from './context.js';
import type { ActivityDeps } from './deps.js';

const ACTOR = 'workflow:persistentTask';

function workflowCause() {
  const wf = currentWorkflow();
  return { actor: ACTOR, workflowId: wf.workflowId, runId: wf.runId };
}

export interface PlanTaskBurstInput {
  schedule: TaskSchedule;
  /** The last burst's scheduled time (or when the task was planned from). */
  after: string;
  /** The workflow's clock. */
  now: string;
}

export interface RunTaskBurstInput {
  taskId: string;
  namespace: string;
  burst: number;
  scheduledAt: string;
  intent: string;
  progress: TaskProgress;
  webhookUrl: string | null;
}

/** The persistentTask workflow's activities (names are stored in history: do not rename). All idempotent. */
export function createTaskActivities(deps: ActivityDeps) {
  return {
    /** The next burst's time from the schedule (cron-parser is not workflow code). */
    async planTaskBurst(input: PlanTaskBurstInput): Promise<string> {
      try {
        return nextBurstAt(input.schedule, new Date(input.after), new Date(input.now)).toISOString();
      } catch (err) {
        throw ApplicationFailure.nonRetryable(`cannot plan the next burst: ${(err as Error).message}`, 'InvalidTaskSchedule');
      }
    },

    /**
     * One burst: opens its row (memory writes with the task id count against
     * it from here), POSTs to the webhook when there is one and records the
     * outcome. A webhook failure is an outcome, not an activity failure.
     */
    async runTaskBurst(input: RunTaskBurstInput): Promise<BurstResult> {
      const key = { taskId: input.taskId, namespace: input.namespace, burst: input.burst };
      const recorded = await beginBurstRow(deps.pool, key, input.scheduledAt);
      if (recorded) return recorded;
      const result: Omit<BurstResult, 'finishedAt'> = input.webhookUrl
        ? await callTaskWebhook(input.webhookUrl, {
            task_id: input.taskId,
            burst: input.burst,
            intent: input.intent,
            progress: input.progress,
            working_memory: await getSessionView(deps, input.namespace, input.taskId),
          })
        : { outcome: 'ok', httpStatus: null, error: null, answer: null };
      return finishBurstRow(deps.pool, key, result, workflowCause());
    },

    /** Writes the live state to `persistent_task` (absolute values: idempotent). */
    async saveTaskState(record: TaskRecord): Promise<void> {
      await saveTaskRecord(deps.pool, record, workflowCause());
    },

    /** Opens the `task_budget` review item and starts its review workflow. */
    async openTaskBudgetReview(request: BudgetReviewRequest): Promise<{ reviewId: string }> {
      const { reviewId } = await openTaskBudgetReview(deps.pool, request, workflowCause());
      await startReviewWorkflows(deps, [reviewId]);
      return { reviewId };
    },
  };
}
