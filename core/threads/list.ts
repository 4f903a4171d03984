import type { Queryable } from '../db/pool.js';
import { THREAD_COLUMNS, threadView, type ThreadRow, type ThreadView } from './rows.js';

export interface ThreadFilter {
  namespace: string;
  /** Only threads this agent (or `user`) takes part in. */
  participant?: string;
  /**
   * Only threads waiting for `participant`: the participant is in the thread
   * and did not speak last, i.e. the newest message is someone else's, or
   * there is no message yet (a thread opened for them waits for their first
   * word). Requires `participant`.
   */
  waiting?: boolean;
  limit: number;
  cursor?: ThreadCursor;
}

/** Position in the list's order (most recent activity first): the last thread of the previous page. */
export interface ThreadCursor {
  updatedAt: Date;
  id: string;
}

export interface ThreadPage {
  threads: ThreadView[];
  next_cursor: string | null;
}

export function encodeCursor(cursor: ThreadCursor): string {
  return Buffer.from(JSON.stringify([cursor.updatedAt.toISOString(), cursor.id])).toString('base64url');
}

/** The cursor a page handed out, or null when the text is not one. */
export function decodeCursor(text: string): ThreadCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string') return null;
    const updatedAt = new Date(value[0]);
    if (Number.isNaN(updatedAt.getTime()) || !/^[0-9a-f-]{36}$/i.test(value[1])) return null;
    return { updatedAt, id: value[1] };
  } catch {
    return null;
  }
}

/** A namespace's threads, most recent activity first, filtered by participant and waiting. */
export async function listThreads(db: Queryable, filter: ThreadFilter): Promise<ThreadPage> {
  if (filter.waiting && !filter.participant) throw new Error('waiting needs a participant');
  const params: unknown[] = [filter.namespace];
  const where = ['namespace = $1'];
  if (filter.participant !== undefined) {
    params.push(filter.participant);
    where.push(`participants @> ARRAY[$${params.length}::text]`);
    if (filter.waiting) where.push(`last_sender IS DISTINCT FROM $${params.length}::text`);
  }
  if (filter.cursor) {
    params.push(filter.cursor.updatedAt, filter.cursor.id);
    where.push(`(updated_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(filter.limit + 1);
  const { rows } = await db.query<ThreadRow>(
    `SELECT ${THREAD_COLUMNS} FROM thread WHERE ${where.join(' AND ')} ORDER BY updated_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, filter.limit);
  const last = page[page.length - 1];
  return {
    threads: page.map(threadView),
    next_cursor: rows.length > filter.limit ? encodeCursor({ updatedAt: last.updated_at, id: last.id }) : null,
  };
}
