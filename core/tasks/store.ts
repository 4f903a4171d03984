/**
 * The durable copy of persistent tasks in Postgres (`persistent_task`,
 * `task_burst`). The workflow keeps the live state; these rows answer when the
 * workflow cannot (closed, Temporal down) and list tasks.
 */
import { writeAudit, type AuditCause } from '../audit/auditLog.js';
import { withTransaction, type Pool, type Queryable } from '../db/pool.js';
import {
  RECENT_BURSTS,
  type BurstOutcome,
  type BurstSummary,
  type TaskProgress,
  type TaskRecord,
  type TaskSchedule,
  type TaskStatus,
  type TaskView,
} from './contracts.js';

export interface TaskRow {
  id: string;
  namespace: string;
  intent: string;
  schedule: TaskSchedule;
  status: TaskStatus;
  progress: Partial<TaskProgress>;
  error_budget: number;
  error_budget_remaining: number;
  webhook_url: string | null;
  user_id: string | null;
  agent_id: string | null;
  workflow_id: string;
  current_burst: number;
  next_burst_at: Date | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const TASK_COLUMNS = `id, namespace, intent, schedule, status, progress, error_budget, error_budget_remaining, webhook_url,
  user_id, agent_id, workflow_id, current_burst, next_burst_at, created_at, updated_at, finished_at`;

/** A task as a client asks for it. */
export interface NewTask {
  id: string;
  namespace: string;
  intent: string;
  schedule: TaskSchedule;
  errorBudget: number;
  webhookUrl: string | null;
  userId: string | null;
  agentId: string | null;
}

/** What the row adds: its workflow and first burst. */
export interface NewTaskRow extends NewTask {
  workflowId: string;
  nextBurstAt: Date;
}

export async function insertTask(db: Queryable, task: NewTaskRow): Promise<TaskRow> {
  const { rows } = await db.query<TaskRow>(
    `INSERT INTO persistent_task (id, namespace, intent, schedule, status, error_budget, error_budget_remaining, webhook_url,
                                  user_id, agent_id, workflow_id, next_burst_at)
     VALUES ($1, $2, $3, $4, 'active', $5, $5, $6, $7, $8, $9, $10)
     RETURNING ${TASK_COLUMNS}`,
    [task.id, task.namespace, task.intent, JSON.stringify(task.schedule), task.errorBudget, task.webhookUrl, task.userId, task.agentId, task.workflowId, task.nextBurstAt],
  );
  return rows[0];
}

/** One task by id (a primary-key read); callers check the caller may see its namespace. */
export async function findTask(db: Queryable, id: string): Promise<TaskRow | null> {
  const { rows } = await db.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM persistent_task WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export async function listTasks(db: Queryable, filter: { namespace: string; status?: TaskStatus; limit: number }): Promise<TaskRow[]> {
  const { rows } = await db.query<TaskRow>(
    `SELECT ${TASK_COLUMNS} FROM persistent_task
      WHERE namespace = $1 AND ($2::text IS NULL OR status = $2)
      ORDER BY created_at DESC, id DESC
      LIMIT $3`,
    [filter.namespace, filter.status ?? null, filter.limit],
  );
  return rows;
}

interface BurstRow {
  burst_index: number;
  scheduled_at: Date | null;
  started_at: Date;
  finished_at: Date | null;
  outcome: BurstOutcome | 'skipped' | null;
  http_status: number | null;
  error: string | null;
}

/** The task's last finished bursts, newest first. */
export async function recentBursts(db: Queryable, namespace: string, taskId: string, limit = RECENT_BURSTS): Promise<BurstSummary[]> {
  const { rows } = await db.query<BurstRow>(
    `SELECT burst_index, scheduled_at, started_at, finished_at, outcome, http_status, error FROM task_burst
      WHERE namespace = $1 AND task_id = $2 AND outcome IN ('ok', 'failed')
      ORDER BY burst_index DESC LIMIT $3`,
    [namespace, taskId, limit],
  );
  return rows.map((r) => ({
    burst: r.burst_index,
    scheduled_at: (r.scheduled_at ?? r.started_at).toISOString(),
    finished_at: (r.finished_at ?? r.started_at).toISOString(),
    outcome: r.outcome as BurstOutcome,
    http_status: r.http_status,
    error: r.error,
  }));
}

/** A task as `GET /v1/tasks/:id` shows it, from its durable copy. */
export function taskViewFromRow(row: TaskRow, bursts: BurstSummary[]): TaskView {
  return {
    id: row.id,
    namespace: row.namespace,
    intent: row.intent,
    schedule: row.schedule,
    status: row.status,
    progress: { note: row.progress.note ?? null, percent: row.progress.percent ?? null, updated_at: row.progress.updated_at ?? null },
    error_budget: row.error_budget,
    error_budget_remaining: row.error_budget_remaining,
    current_burst: row.current_burst,
    bursts,
    next_burst_at: row.next_burst_at?.toISOString() ?? null,
  };
}

/** The list form: the row without its bursts. */
export function taskSummary(row: TaskRow) {
  return {
    id: row.id,
    namespace: row.namespace,
    intent: row.intent,
    schedule: row.schedule,
    status: row.status,
    progress: row.progress,
    error_budget: row.error_budget,
    error_budget_remaining: row.error_budget_remaining,
    current_burst: row.current_burst,
    next_burst_at: row.next_burst_at?.toISOString() ?? null,
    webhook_url: row.webhook_url,
    user_id: row.user_id,
    agent_id: row.agent_id,
    workflow_id: row.workflow_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}

export class TaskRowMissing extends Error {
  constructor(taskId: string) {
    super(`persistent_task ${taskId} not found (not committed yet?)`);
    this.name = 'TaskRowMissing';
  }
}

/**
 * Writes the workflow's live state to the durable copy (absolute values:
 * a retry writes the same row) and audits a status change once.
 */
export async function saveTaskRecord(pool: Pool, record: TaskRecord, cause: Omit<AuditCause, 'namespace'>): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ status: TaskStatus; error_budget: number }>(
      'SELECT status, error_budget FROM persistent_task WHERE id = $1 AND namespace = $2 FOR UPDATE',
      [record.taskId, record.namespace],
    );
    const before = rows[0];
    if (!before) throw new TaskRowMissing(record.taskId);
    const finished = record.status === 'cancelled' || record.status === 'completed';
    await tx.query(
      `UPDATE persistent_task
          SET status = $3, progress = $4, error_budget = $5, error_budget_remaining = $6, current_burst = GREATEST(current_burst, $7),
              next_burst_at = $8, updated_at = now(), finished_at = CASE WHEN $9 THEN COALESCE(finished_at, now()) ELSE NULL END
        WHERE id = $1 AND namespace = $2`,
      [
        record.taskId,
        record.namespace,
        record.status,
        JSON.stringify(record.progress),
        record.errorBudget,
        record.errorBudgetRemaining,
        record.currentBurst,
        record.nextBurstAt,
        finished,
      ],
    );
    if (before.status !== record.status) {
      await writeAudit(tx, { ...cause, namespace: record.namespace }, [
        { action: 'task.status', targetType: 'persistent_task', targetId: record.taskId, before: { status: before.status }, after: { status: record.status } },
      ]);
    }
  });
}
