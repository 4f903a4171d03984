/**
 * The write limit of a task execution (DESIGN §4): memories written with a
 * task's id count against the task's current burst, at most
 * TASK_WRITES_PER_BURST per burst. Counted atomically in SQL, so concurrent
 * writers cannot overshoot; a refused write is audited, never silently dropped.
 */
import { writeAudit, type AuditCause } from '../audit/auditLog.js';
import { withTransaction, type Pool, type Queryable } from '../db/pool.js';
import { TASK_WRITES_PER_BURST } from './contracts.js';

export interface TaskWrites {
  namespace: string;
  taskId: string;
  count: number;
}

/** A memory named a task that this namespace does not have. */
export class UnknownTask extends Error {
  constructor(
    readonly namespace: string,
    readonly taskId: string,
  ) {
    super(`no persistent task ${taskId} in namespace "${namespace}"`);
    this.name = 'UnknownTask';
  }
}

export class TaskWriteLimitExceeded extends Error {
  constructor(
    readonly namespace: string,
    readonly taskId: string,
    readonly burst: number,
    readonly writes: number,
    readonly attempted: number,
    readonly limit: number,
  ) {
    super(`task ${taskId} already wrote ${writes} of ${limit} memories in burst ${burst}; ${attempted} more would pass the limit`);
    this.name = 'TaskWriteLimitExceeded';
  }
}

/** Counts `count` writes against the task's current burst; null when that would pass `limit` (or the task is unknown). */
async function countWrites(db: Queryable, w: TaskWrites, limit: number): Promise<{ burst: number; writes: number } | null> {
  const { rows } = await db.query<{ burst_index: number; writes: number }>(
    `INSERT INTO task_burst (task_id, burst_index, namespace, writes)
     SELECT id, current_burst, namespace, $3::int FROM persistent_task WHERE id = $1 AND namespace = $2 AND $3::int <= $4::int
     ON CONFLICT (task_id, burst_index) DO UPDATE SET writes = task_burst.writes + EXCLUDED.writes
       WHERE task_burst.writes + EXCLUDED.writes <= $4::int
     RETURNING burst_index, writes`,
    [w.taskId, w.namespace, w.count, limit],
  );
  return rows[0] ? { burst: rows[0].burst_index, writes: rows[0].writes } : null;
}

async function currentWrites(db: Queryable, w: TaskWrites): Promise<{ burst: number; writes: number } | null> {
  const { rows } = await db.query<{ burst: number; writes: number }>(
    `SELECT t.current_burst AS burst, COALESCE(b.writes, 0) AS writes
       FROM persistent_task t LEFT JOIN task_burst b ON b.task_id = t.id AND b.burst_index = t.current_burst
      WHERE t.id = $1 AND t.namespace = $2`,
    [w.taskId, w.namespace],
  );
  return rows[0] ?? null;
}

/**
 * Reserves the writes of one request, all or none (a batch over the limit
 * for any task writes nothing). Throws UnknownTask, or TaskWriteLimitExceeded
 * after recording a `task.write_limit` audit row.
 */
export async function reserveTaskWrites(pool: Pool, writes: TaskWrites[], cause: Omit<AuditCause, 'namespace'>, limit = TASK_WRITES_PER_BURST): Promise<void> {
  if (writes.length === 0) return;
  // A stable order, so two batches naming the same tasks lock their rows in the same order.
  const ordered = [...writes].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.taskId.localeCompare(b.taskId));
  try {
    await withTransaction(pool, async (tx) => {
      for (const w of ordered) {
        if (await countWrites(tx, w, limit)) continue;
        const current = await currentWrites(tx, w);
        if (!current) throw new UnknownTask(w.namespace, w.taskId);
        throw new TaskWriteLimitExceeded(w.namespace, w.taskId, current.burst, current.writes, w.count, limit);
      }
    });
  } catch (err) {
    if (err instanceof TaskWriteLimitExceeded) {
      await writeAudit(pool, { ...cause, namespace: err.namespace }, [
        {
          action: 'task.write_limit',
          targetType: 'persistent_task',
          targetId: err.taskId,
          after: { burst: err.burst, writes: err.writes, refused: err.attempted, limit: err.limit },
        },
      ]);
    }
    throw err;
  }
}

/** Groups memories by (namespace, task id) into write counts. */
export function countTaskWrites(memories: Array<{ namespace: string; taskId?: string }>): TaskWrites[] {
  const counts = new Map<string, TaskWrites>();
  for (const m of memories) {
    if (!m.taskId) continue;
    const key = `${m.namespace}\u0000${m.taskId}`;
    const entry = counts.get(key) ?? { namespace: m.namespace, taskId: m.taskId, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  return [...counts.values()];
}
