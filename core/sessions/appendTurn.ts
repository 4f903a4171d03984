import { randomUUID } from 'node:crypto';
import { writeAudit } from '../audit/auditLog.js';
import { withTransaction, type PoolClient } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { sessionWorkflowId } from './contracts.js';
import { effectiveTtlMs, type TurnRole } from './rows.js';

export interface NewTurn {
  namespace: string;
  taskId: string;
  role: TurnRole;
  content: string;
  toolResult?: unknown;
  userId?: string;
  agentId?: string;
  ttlSeconds?: number;
}

export interface AppendedTurn {
  sessionId: string;
  turnIndex: number;
  ttlMs: number;
  /** This turn opened a new session row. */
  opened: boolean;
}

interface SessionSlot {
  id: string;
  turn_index: number;
  ttl_seconds: number | null;
}

/**
 * Takes the next turn index of the task's active session: the row lock of this
 * UPDATE serializes concurrent turns, so indexes are dense and unique.
 */
async function claimNextIndex(tx: PoolClient, turn: NewTurn, now: Date, defaultTtlMs: number): Promise<SessionSlot | null> {
  const { rows } = await tx.query<SessionSlot>(
    `UPDATE work_session
        SET turn_count = turn_count + 1,
            ttl_seconds = COALESCE($3::int, ttl_seconds),
            last_activity_at = $4,
            expires_at = $4::timestamptz + make_interval(secs => COALESCE($3::int, ttl_seconds, $5::float8 / 1000)),
            user_id = COALESCE(user_id, $6),
            agent_id = COALESCE(agent_id, $7),
            updated_at = now()
      WHERE namespace = $1 AND task_id = $2 AND status = 'active'
      RETURNING id, turn_count - 1 AS turn_index, ttl_seconds`,
    [turn.namespace, turn.taskId, turn.ttlSeconds ?? null, now, defaultTtlMs, turn.userId ?? null, turn.agentId ?? null],
  );
  return rows[0] ?? null;
}

/**
 * Opens a fresh active session holding this first turn. Of two first turns
 * racing, the active-row unique index lets one insert; the other gets null and
 * claims the next index of the winner's row.
 */
async function openWithFirstTurn(tx: PoolClient, turn: NewTurn, now: Date, defaultTtlMs: number): Promise<SessionSlot | null> {
  const { rows } = await tx.query<SessionSlot>(
    `INSERT INTO work_session (id, namespace, task_id, user_id, agent_id, ttl_seconds, persistent_task_id,
                               turn_count, last_activity_at, expires_at, workflow_id)
     VALUES ($1, $2, $3, $4, $5, $6::int,
             (SELECT id FROM persistent_task WHERE namespace = $2 AND id::text = $3 AND status IN ('active', 'paused')),
             1, $7, $7::timestamptz + make_interval(secs => COALESCE($6::int, $8::float8 / 1000)), $9)
     ON CONFLICT (namespace, task_id) WHERE status = 'active' DO NOTHING
     RETURNING id, 0 AS turn_index, ttl_seconds`,
    [randomUUID(), turn.namespace, turn.taskId, turn.userId ?? null, turn.agentId ?? null, turn.ttlSeconds ?? null, now, defaultTtlMs,
      sessionWorkflowId(turn.namespace, turn.taskId)],
  );
  return rows[0] ?? null;
}

/**
 * Commits one turn: its index in the task's active session (a fresh session
 * when none is active), the turn row and the audit rows, in one transaction.
 * The caller signals the session workflow afterwards.
 */
export async function appendTurn(
  deps: Pick<Deps, 'pool' | 'config' | 'now'>,
  turn: NewTurn,
  cause: { actor: string; requestId?: string },
): Promise<AppendedTurn> {
  await deps.pool.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [turn.namespace]);
  return withTransaction(deps.pool, async (tx) => {
    const now = deps.now();
    const defaultTtlMs = deps.config.SESSION_TTL;
    let slot = await claimNextIndex(tx, turn, now, defaultTtlMs);
    let opened = false;
    if (!slot) {
      slot = await openWithFirstTurn(tx, turn, now, defaultTtlMs);
      opened = slot !== null;
      // Lost the race for the first turn: the winner's row is committed and visible to the next statement.
      slot ??= await claimNextIndex(tx, turn, now, defaultTtlMs);
    }
    if (!slot) throw new Error(`could not open a session for task ${turn.taskId}`);
    await tx.query(
      `INSERT INTO session_turn (session_id, turn_index, namespace, role, content, tool_result, created_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)`,
      [slot.id, slot.turn_index, turn.namespace, turn.role, turn.content, turn.toolResult === undefined ? null : JSON.stringify(turn.toolResult), now],
    );
    const workflowId = sessionWorkflowId(turn.namespace, turn.taskId);
    await writeAudit(tx, { namespace: turn.namespace, actor: cause.actor, requestId: cause.requestId, workflowId }, [
      ...(opened
        ? [{ action: 'session.open', targetType: 'work_session', targetId: slot.id, after: { task_id: turn.taskId, ttl_seconds: slot.ttl_seconds } }]
        : []),
      // The content stays in session_turn: the audit row names the turn, not what was said.
      { action: 'session.turn', targetType: 'work_session', targetId: slot.id, after: { turn_index: slot.turn_index, role: turn.role } },
    ]);
    return { sessionId: slot.id, turnIndex: slot.turn_index, ttlMs: effectiveTtlMs(slot.ttl_seconds, deps.config), opened };
  });
}
