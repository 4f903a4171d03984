import { randomUUID } from 'node:crypto';
import { writeAudit, type AuditCause } from '../audit/auditLog.js';
import { withTransaction, type Pool } from '../db/pool.js';

export interface BudgetReviewRequest {
  taskId: string;
  namespace: string;
  burst: number;
  intent: string;
  reason: string;
}

export function taskBudgetDedupKey(taskId: string, burst: number): string {
  return `task_budget:${taskId}:${burst}`;
}

/**
 * Opens the `task_budget` review item of a task that spent its error budget
 * (once per task and burst: a retry finds the same item). Approving it resumes
 * the task with its budget restored; rejecting it cancels the task.
 */
export async function openTaskBudgetReview(pool: Pool, request: BudgetReviewRequest, cause: Omit<AuditCause, 'namespace'>): Promise<{ reviewId: string; created: boolean }> {
  const dedupKey = taskBudgetDedupKey(request.taskId, request.burst);
  return withTransaction(pool, async (tx) => {
    const title = `Task "${truncate(request.intent, 80)}" spent its error budget`;
    const inserted = await tx.query<{ id: string }>(
      `INSERT INTO review_item (id, namespace, kind, status, title, payload, dedup_key)
       VALUES ($1, $2, 'task_budget', 'open', $3, $4, $5)
       ON CONFLICT (dedup_key) DO NOTHING
       RETURNING id`,
      [randomUUID(), request.namespace, title, JSON.stringify({ task_id: request.taskId, reason: request.reason }), dedupKey],
    );
    if (inserted.rows[0]) {
      await writeAudit(tx, { ...cause, namespace: request.namespace }, [
        { action: 'review.open', targetType: 'review_item', targetId: inserted.rows[0].id, after: { kind: 'task_budget', task_id: request.taskId, reason: request.reason } },
      ]);
      return { reviewId: inserted.rows[0].id, created: true };
    }
    const existing = await tx.query<{ id: string }>('SELECT id FROM review_item WHERE dedup_key = $1 AND namespace = $2', [dedupKey, request.namespace]);
    return { reviewId: existing.rows[0].id, created: false };
  });
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
