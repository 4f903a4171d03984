import { WorkflowNotFoundError } from '@temporalio/client';
import type { Deps } from '../deps.js';
import { cancel, persistentTaskWorkflowId, resume, setBudget } from '../tasks/contracts.js';
import { withDeadline } from '../temporal/client.js';

export interface TaskBudgetOutcome {
  applied: boolean;
  task_id: string | null;
  /** What was signalled, or why nothing was. */
  signals: string[];
  reason?: string;
}

/**
 * Carries out a `task_budget` decision on the task's workflow: approve restores
 * the budget (`setBudget` with the task's `error_budget`) and resumes it;
 * reject cancels it. Signals are idempotent, so a retried activity repeats
 * them harmlessly. A task that is gone or finished is reported, not an error.
 */
export async function applyTaskBudgetDecision(
  deps: Pick<Deps, 'pool' | 'temporal'>,
  item: { namespace: string; payload: Record<string, unknown> },
  decision: 'approve' | 'reject',
): Promise<TaskBudgetOutcome> {
  const taskId = typeof item.payload.task_id === 'string' ? item.payload.task_id : null;
  if (!taskId) return { applied: false, task_id: null, signals: [], reason: 'the item names no task_id' };
  const { rows } = await deps.pool.query<{ error_budget: number; status: string }>(
    'SELECT error_budget, status FROM persistent_task WHERE id = $1 AND namespace = $2',
    [taskId, item.namespace],
  );
  const task = rows[0];
  if (!task) return { applied: false, task_id: taskId, signals: [], reason: 'the task no longer exists' };
  if (task.status === 'cancelled' || task.status === 'completed') {
    return { applied: false, task_id: taskId, signals: [], reason: `the task is already ${task.status}` };
  }
  const handle = deps.temporal.client.workflow.getHandle(persistentTaskWorkflowId(taskId));
  try {
    if (decision === 'approve') {
      await withDeadline(deps.temporal, 10_000, () => handle.signal(setBudget, { error_budget: Math.max(1, task.error_budget) }));
      await withDeadline(deps.temporal, 10_000, () => handle.signal(resume));
      return { applied: true, task_id: taskId, signals: ['setBudget', 'resume'] };
    }
    await withDeadline(deps.temporal, 10_000, () => handle.signal(cancel));
    return { applied: true, task_id: taskId, signals: ['cancel'] };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { applied: false, task_id: taskId, signals: [], reason: 'the task workflow is not running' };
    throw err;
  }
}
