import { randomUUID } from 'node:crypto';
import { writeAudit, type AuditCause } from '../audit/auditLog.js';
import { withTransaction } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { sessionWorkflowId, type OpenedSession } from './contracts.js';
import { effectiveTtlMs, SESSION_COLUMNS, type SessionRow } from './rows.js';

/**
 * The task's active session, opened fresh when there is none (the previous
 * one was archived): the first thing a session workflow run does. Normally the
 * turn that started the run already opened it.
 */
export async function openSession(
  deps: Pick<Deps, 'pool' | 'config' | 'now'>,
  namespace: string,
  taskId: string,
  cause: Omit<AuditCause, 'namespace'>,
): Promise<OpenedSession> {
  const toOpened = (row: SessionRow): OpenedSession => ({
    sessionId: row.id,
    turnCount: row.turn_count,
    summarizedThrough: row.summarized_through,
    ttlMs: effectiveTtlMs(row.ttl_seconds, deps.config),
  });
  const findActive = async () =>
    (
      await deps.pool.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM work_session WHERE namespace = $1 AND task_id = $2 AND status = 'active'`, [
        namespace,
        taskId,
      ])
    ).rows[0];
  const active = await findActive();
  if (active) return toOpened(active);

  await deps.pool.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [namespace]);
  const opened = await withTransaction(deps.pool, async (tx) => {
    const now = deps.now();
    const { rows } = await tx.query<SessionRow>(
      `INSERT INTO work_session (id, namespace, task_id, persistent_task_id, last_activity_at, expires_at, workflow_id)
       VALUES ($1, $2, $3,
               (SELECT id FROM persistent_task WHERE namespace = $2 AND id::text = $3 AND status IN ('active', 'paused')),
               $4, $4::timestamptz + make_interval(secs => $5::float8 / 1000), $6)
       ON CONFLICT (namespace, task_id) WHERE status = 'active' DO NOTHING
       RETURNING ${SESSION_COLUMNS}`,
      [randomUUID(), namespace, taskId, now, deps.config.SESSION_TTL, sessionWorkflowId(namespace, taskId)],
    );
    if (rows[0]) {
      await writeAudit(tx, { ...cause, namespace }, [{ action: 'session.open', targetType: 'work_session', targetId: rows[0].id, after: { task_id: taskId } }]);
    }
    return rows[0];
  });
  // Null: a turn opened it at the same moment.
  const row = opened ?? (await findActive());
  if (!row) throw new Error(`no active session for task ${taskId}`);
  return toOpened(row);
}
