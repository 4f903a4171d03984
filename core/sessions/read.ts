import type { Deps } from '../deps.js';
import { loadTurns, SESSION_COLUMNS, type SessionRow, type TurnRole } from './rows.js';

export interface SessionTurnView {
  turn_index: number;
  role: TurnRole;
  content: string;
  tool_result: unknown;
  created_at: string;
}

/** The working context an agent reloads after a restart (the body of `GET /v1/sessions/:task_id`). */
export interface SessionView {
  task_id: string;
  status: 'active' | 'archived';
  summary: string | null;
  /** The turns not folded into the summary, in order. */
  turns: SessionTurnView[];
  turn_count: number;
  last_activity_at: string;
  expires_at: string | null;
}

/**
 * The task's session: the active one, else the latest archived one; null when
 * the task id has none in this namespace.
 */
export async function getSessionView(deps: Pick<Deps, 'pool'>, namespace: string, taskId: string): Promise<SessionView | null> {
  const { rows } = await deps.pool.query<SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM work_session
      WHERE namespace = $1 AND task_id = $2
      ORDER BY (status = 'active') DESC, created_at DESC
      LIMIT 1`,
    [namespace, taskId],
  );
  const session = rows[0];
  if (!session) return null;
  const turns = await loadTurns(deps.pool, session, session.summarized_through);
  return {
    task_id: session.task_id,
    status: session.status,
    summary: session.summary,
    turns: turns.map((t) => ({
      turn_index: t.turnIndex,
      role: t.role,
      content: t.content,
      tool_result: t.toolResult,
      created_at: t.createdAt.toISOString(),
    })),
    turn_count: session.turn_count,
    last_activity_at: session.last_activity_at.toISOString(),
    expires_at: session.expires_at?.toISOString() ?? null,
  };
}
