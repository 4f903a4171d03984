/**
 * One execution burst of a persistent task, recorded in `task_burst`. Each
 * step is idempotent: a retried burst finds its row and, once finished, its
 * recorded outcome instead of calling the webhook again.
 */
import { writeAudit, type AuditCause } from '../audit/auditLog.js';
import { withTransaction, type Pool } from '../db/pool.js';
import type { BurstResult } from './contracts.js';
import { TaskRowMissing } from './store.js';

export interface BurstKey {
  taskId: string;
  namespace: string;
  burst: number;
}

/**
 * Opens the burst's row and makes it the task's current burst (memory writes
 * with the task's id count against it from now on). Returns the recorded
 * result when the burst already finished (a retry).
 */
export async function beginBurstRow(pool: Pool, key: BurstKey, scheduledAt: string): Promise<BurstResult | null> {
  return withTransaction(pool, async (tx) => {
    const task = await tx.query(
      'UPDATE persistent_task SET current_burst = GREATEST(current_burst, $3), updated_at = now() WHERE id = $1 AND namespace = $2',
      [key.taskId, key.namespace, key.burst],
    );
    if (!task.rowCount) throw new TaskRowMissing(key.taskId);
    await tx.query(
      `INSERT INTO task_burst (task_id, burst_index, namespace, scheduled_at) VALUES ($1, $3, $2, $4)
       ON CONFLICT (task_id, burst_index) DO NOTHING`,
      [key.taskId, key.namespace, key.burst, scheduledAt],
    );
    return recordedBurst(tx, key);
  });
}

/** Records the burst's outcome once (a retry keeps the first) and audits it. Returns the recorded result. */
export async function finishBurstRow(pool: Pool, key: BurstKey, result: Omit<BurstResult, 'finishedAt'>, cause: Omit<AuditCause, 'namespace'>): Promise<BurstResult> {
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ finished_at: Date }>(
      `UPDATE task_burst SET outcome = $4, http_status = $5, error = $6, response = $7, finished_at = now()
        WHERE task_id = $1 AND namespace = $2 AND burst_index = $3 AND outcome IS NULL
        RETURNING finished_at`,
      [key.taskId, key.namespace, key.burst, result.outcome, result.httpStatus, result.error, result.answer === null ? null : JSON.stringify(result.answer)],
    );
    if (rows[0]) {
      await writeAudit(tx, { ...cause, namespace: key.namespace }, [
        {
          action: result.outcome === 'ok' ? 'task.burst' : 'task.burst_failed',
          targetType: 'persistent_task',
          targetId: key.taskId,
          after: { burst: key.burst, outcome: result.outcome, http_status: result.httpStatus, error: result.error },
        },
      ]);
      return { ...result, finishedAt: rows[0].finished_at.toISOString() };
    }
    const recorded = await recordedBurst(tx, key);
    if (!recorded) throw new Error(`task_burst ${key.taskId}/${key.burst} is missing`);
    return recorded;
  });
}

/** The burst's recorded result, or null while it has none. */
async function recordedBurst(tx: Pick<Pool, 'query'>, key: BurstKey): Promise<BurstResult | null> {
  const { rows } = await tx.query<{ outcome: 'ok' | 'failed'; http_status: number | null; error: string | null; response: BurstResult['answer']; finished_at: Date }>(
    `SELECT outcome, http_status, error, response, finished_at FROM task_burst
      WHERE task_id = $1 AND namespace = $2 AND burst_index = $3 AND outcome IN ('ok', 'failed')`,
    [key.taskId, key.namespace, key.burst],
  );
  const row = rows[0];
  return row ? { outcome: row.outcome, httpStatus: row.http_status, error: row.error, answer: row.response, finishedAt: row.finished_at.toISOString() } : null;
}
