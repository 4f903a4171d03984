import type { Queryable } from '../db/pool.js';
import { MESSAGE_COLUMNS, messageView, THREAD_COLUMNS, threadView, type ThreadMessageRow, type ThreadMessageView, type ThreadRow, type ThreadView } from './rows.js';

export interface MessagePage {
  messages: ThreadMessageView[];
  /** Pass as `after` for the next page; null when this page reached the newest message. */
  next_after: number | null;
}

export type ThreadWithMessages = ThreadView & MessagePage;

/** A thread of the namespace, or null (another namespace's thread is not found either). */
export async function findThread(db: Queryable, namespace: string, threadId: string): Promise<ThreadView | null> {
  const { rows } = await db.query<ThreadRow>(`SELECT ${THREAD_COLUMNS} FROM thread WHERE id = $1 AND namespace = $2`, [threadId, namespace]);
  return rows[0] ? threadView(rows[0]) : null;
}

/** Up to `limit` messages of a thread with seq greater than `after`, oldest first. */
export async function messagesAfter(db: Queryable, threadId: string, after: number, limit: number): Promise<MessagePage> {
  const { rows } = await db.query<ThreadMessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM thread_message WHERE thread_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [threadId, after, limit + 1],
  );
  const page = rows.slice(0, limit);
  return { messages: page.map(messageView), next_after: rows.length > limit ? page[page.length - 1].seq : null };
}

/** A thread with one page of its messages (after seq `after`), or null. */
export async function getThread(db: Queryable, namespace: string, threadId: string, after: number, limit: number): Promise<ThreadWithMessages | null> {
  const thread = await findThread(db, namespace, threadId);
  if (!thread) return null;
  return { ...thread, ...(await messagesAfter(db, threadId, after, limit)) };
}
