import { WorkflowNotFoundError } from '@temporalio/client';
import type { Queryable } from '../db/pool.js';
import { archiveSession } from '../sessions/archive.js';
import type { SessionWorkDeps } from '../sessions/fold.js';
import { withDeadline } from '../temporal/client.js';

export interface SessionExpiryBatch {
  namespace: string;
  after: string | null;
  now: Date;
  limit: number;
  /** Audit cause of the archives (the dream's workflow). */
  workflowId: string | null;
}

export interface SessionExpiryResult {
  sessionsChecked: number;
  sessionsExpired: number;
  lastId: string | null;
  full: boolean;
}

/**
 * Active sessions idle past their expiry (`expires_at`, else last activity +
 * TTL) at `now`, except those of an active or paused persistent task.
 */
async function idleSessions(db: Queryable, batch: SessionExpiryBatch, defaultTtlMs: number): Promise<Array<{ id: string; workflow_id: string }>> {
  const { rows } = await db.query<{ id: string; workflow_id: string }>(
    `SELECT s.id, s.workflow_id FROM work_session s
      WHERE s.namespace = $1 AND s.status = 'active' AND ($2::uuid IS NULL OR s.id > $2::uuid)
        AND COALESCE(s.expires_at, s.last_activity_at + make_interval(secs => COALESCE(s.ttl_seconds, $5::float8 / 1000))) < $3::timestamptz
        AND NOT EXISTS (SELECT 1 FROM persistent_task t
                         WHERE t.namespace = s.namespace AND (t.id = s.persistent_task_id OR t.id::text = s.task_id)
                           AND t.status IN ('active', 'paused'))
      ORDER BY s.id LIMIT $4`,
    [batch.namespace, batch.after, batch.now, batch.limit, defaultTtlMs],
  );
  return rows;
}

/** True when the session's workflow (`session:<namespace>:<task_id>`) is running and will archive the session itself. */
async function sessionWorkflowRunning(deps: Pick<SessionWorkDeps, 'temporal'>, workflowId: string): Promise<boolean> {
  try {
    const description = await withDeadline(deps.temporal, 10_000, () => deps.temporal.client.workflow.getHandle(workflowId).describe());
    return description.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * Working-memory expiry: idle sessions whose workflow is gone (never
 * started, finished, terminated, or lost with its history) would stay
 * active forever; they are archived the way their workflow would have
 * (`archiveSession`: final summary, episode, audit). Idempotent per session.
 */
export async function expireSessionsBatch(deps: SessionWorkDeps, db: Queryable, batch: SessionExpiryBatch): Promise<SessionExpiryResult> {
  const candidates = await idleSessions(db, batch, deps.config.SESSION_TTL);
  let expired = 0;
  for (const session of candidates) {
    if (await sessionWorkflowRunning(deps, session.workflow_id)) continue;
    const { archived } = await archiveSession(deps, session.id, { cause: { actor: 'system:dream', workflowId: batch.workflowId } });
    if (archived) expired++;
  }
  return {
    sessionsChecked: candidates.length,
    sessionsExpired: expired,
    lastId: candidates.length ? candidates[candidates.length - 1].id : null,
    full: candidates.length >= batch.limit,
  };
}
