import type { Config } from '../config/config.js';
import type { Queryable } from '../db/pool.js';
import type { SummaryTurn } from './summary.js';

export const TURN_ROLES = ['user', 'assistant', 'tool', 'system'] as const;
export type TurnRole = (typeof TURN_ROLES)[number];

/** A `work_session` row as the session code reads it. */
export interface SessionRow {
  id: string;
  namespace: string;
  task_id: string;
  status: 'active' | 'archived';
  user_id: string | null;
  agent_id: string | null;
  ttl_seconds: number | null;
  persistent_task_id: string | null;
  summary: string | null;
  summarized_through: number;
  turn_count: number;
  last_activity_at: Date;
  expires_at: Date | null;
  archived_at: Date | null;
  workflow_id: string;
}

export const SESSION_COLUMNS = `id, namespace, task_id, status, user_id, agent_id, ttl_seconds, persistent_task_id, summary,
  summarized_through, turn_count, last_activity_at, expires_at, archived_at, workflow_id`;

/** The inactivity TTL of a session: its own ttl_seconds, else SESSION_TTL. */
export function effectiveTtlMs(ttlSeconds: number | null, config: Pick<Config, 'SESSION_TTL'>): number {
  return ttlSeconds !== null ? ttlSeconds * 1000 : config.SESSION_TTL;
}

export async function loadSession(db: Queryable, sessionId: string, lock = false): Promise<SessionRow | null> {
  const { rows } = await db.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM work_session WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [sessionId]);
  return rows[0] ?? null;
}

export interface TurnRow extends SummaryTurn {
  toolResult: unknown;
  createdAt: Date;
}

/** Turns [from, to) of a session, in order. */
export async function loadTurns(db: Queryable, session: Pick<SessionRow, 'id' | 'namespace'>, from: number, to?: number): Promise<TurnRow[]> {
  const { rows } = await db.query<{ turn_index: number; role: TurnRole; content: string; tool_result: unknown; created_at: Date }>(
    `SELECT turn_index, role, content, tool_result, created_at FROM session_turn
      WHERE session_id = $1 AND namespace = $2 AND turn_index >= $3 AND ($4::int IS NULL OR turn_index < $4)
      ORDER BY turn_index`,
    [session.id, session.namespace, from, to ?? null],
  );
  return rows.map((r) => ({ turnIndex: r.turn_index, role: r.role, content: r.content, toolResult: r.tool_result, createdAt: r.created_at }));
}

/**
 * The status of the persistent task whose id is this task id, in the same
 * namespace (a persistent task keeps its session alive across bursts).
 */
export async function persistentTaskOf(db: Queryable, namespace: string, taskId: string): Promise<{ id: string; status: string } | null> {
  const { rows } = await db.query<{ id: string; status: string }>(
    'SELECT id, status FROM persistent_task WHERE namespace = $1 AND id::text = $2',
    [namespace, taskId],
  );
  return rows[0] ?? null;
}

export const KEEPS_SESSION_ALIVE = new Set(['active', 'paused']);
