import { WorkflowIdReusePolicy } from '@temporalio/common';
import { writeAudit, type AuditCause } from '../audit/auditLog.js';
import { withTransaction } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { withDeadline } from '../temporal/client.js';
import { PERSISTENT_TASK_WORKFLOW_TYPE, persistentTaskWorkflowId, type PersistentTaskInput } from './contracts.js';
import { nextBurstAt } from './schedule.js';
import { insertTask, type NewTask, type TaskRow } from './store.js';

export type { NewTask };

/** Temporal did not take the workflow: nothing was kept, the caller may try again. */
export class TaskNotStarted extends Error {
  constructor(cause: unknown) {
    super('Temporal is unreachable: the task was not created', { cause });
    this.name = 'TaskNotStarted';
  }
}

/**
 * Creates a task: its row and audit row, and its `task:<id>` workflow, all or
 * nothing. The workflow is started inside the row's transaction and the row
 * is rolled back if the start fails, so every acknowledged task is running.
 * (The workflow's first save retries until the row is committed.)
 */
export async function createTask(deps: Pick<Deps, 'pool' | 'temporal'>, task: NewTask, now: Date, cause: Omit<AuditCause, 'namespace'>): Promise<TaskRow> {
  const workflowId = persistentTaskWorkflowId(task.id);
  // The workflow plans its first burst from its own clock and saves it; this is the row's estimate until then.
  const firstBurstAt = nextBurstAt(task.schedule, now, now);
  return withTransaction(deps.pool, async (tx) => {
    await tx.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [task.namespace]);
    const row = await insertTask(tx, { ...task, workflowId, nextBurstAt: firstBurstAt });
    await writeAudit(tx, { ...cause, namespace: task.namespace }, [
      { action: 'task.create', targetType: 'persistent_task', targetId: task.id, after: { intent: task.intent, schedule: task.schedule, error_budget: task.errorBudget } },
    ]);
    const input: PersistentTaskInput = {
      taskId: task.id,
      namespace: task.namespace,
      intent: task.intent,
      schedule: task.schedule,
      webhookUrl: task.webhookUrl,
      errorBudget: task.errorBudget,
    };
    try {
      await withDeadline(deps.temporal, 5_000, () =>
        deps.temporal.client.workflow.start(PERSISTENT_TASK_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: deps.temporal.taskQueue,
          args: [input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        }),
      );
    } catch (err) {
      throw new TaskNotStarted(err);
    }
    return row;
  });
}
