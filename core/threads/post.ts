import { writeAudit, type AuditCause } from '../audit/auditLog.js';
import { withTransaction, type Pool } from '../db/pool.js';
import { MESSAGE_COLUMNS, messageView, USER_SENDER, type ThreadMessageRow, type ThreadMessageView } from './rows.js';

export interface NewThreadMessage {
  id: string;
  namespace: string;
  threadId: string;
  sender: string;
  content: string;
}

export type PostResult =
  | { kind: 'posted'; message: ThreadMessageView }
  | { kind: 'not_found' }
  /** The sender is neither a participant nor `user`. */
  | { kind: 'not_participant'; participants: string[] };

/** Who may speak in a thread: its participants, and the person (`user`) in any thread. */
export function maySend(participants: readonly string[], sender: string): boolean {
  return sender === USER_SENDER || participants.includes(sender);
}

/**
 * Appends a message. The thread row is locked before the message takes its
 * seq, so two posts to one thread commit in seq order: a stream that has
 * delivered seq N never misses a smaller seq committed later. The thread's
 * summary (last sender, last seq, count) moves in the same transaction.
 */
export async function postMessage(pool: Pool, message: NewThreadMessage, now: Date, cause: Omit<AuditCause, 'namespace'>): Promise<PostResult> {
  return withTransaction(pool, async (tx) => {
    const thread = await tx.query<{ participants: string[] }>('SELECT participants FROM thread WHERE id = $1 AND namespace = $2 FOR UPDATE', [
      message.threadId,
      message.namespace,
    ]);
    if (thread.rows.length === 0) return { kind: 'not_found' };
    const { participants } = thread.rows[0];
    if (!maySend(participants, message.sender)) return { kind: 'not_participant', participants };
    const { rows } = await tx.query<ThreadMessageRow>(
      `INSERT INTO thread_message (id, thread_id, namespace, sender, content, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING ${MESSAGE_COLUMNS}`,
      [message.id, message.threadId, message.namespace, message.sender, message.content, now],
    );
    const row = rows[0];
    await tx.query(
      `UPDATE thread
          SET last_message_at = $2, last_sender = $3, last_seq = $4, message_count = message_count + 1, updated_at = $2
        WHERE id = $1`,
      [message.threadId, now, message.sender, row.seq],
    );
    // The content stays in thread_message: the audit row names the message, not what was said.
    await writeAudit(tx, { ...cause, namespace: message.namespace }, [
      { action: 'thread.message', targetType: 'thread', targetId: message.threadId, after: { message_id: row.id, seq: row.seq, sender: row.sender } },
    ]);
    return { kind: 'posted', message: messageView(row) };
  });
}
