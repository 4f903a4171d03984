import { writeAudit, type AuditCause } from '../audit/auditLog.js';
import { withTransaction, type Pool } from '../db/pool.js';
import { THREAD_COLUMNS, threadView, type ThreadRow, type ThreadView } from './rows.js';

export interface NewThread {
  id: string;
  namespace: string;
  title: string;
  /** Agent ids (or `user`), each once. */
  participants: string[];
}

/** Opens a thread and its audit row in one transaction. */
export async function createThread(pool: Pool, thread: NewThread, now: Date, cause: Omit<AuditCause, 'namespace'>): Promise<ThreadView> {
  return withTransaction(pool, async (tx) => {
    await tx.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [thread.namespace]);
    const { rows } = await tx.query<ThreadRow>(
      `INSERT INTO thread (id, namespace, title, participants, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4::text[], $5, $6, $6)
       RETURNING ${THREAD_COLUMNS}`,
      [thread.id, thread.namespace, thread.title, thread.participants, cause.actor, now],
    );
    await writeAudit(tx, { ...cause, namespace: thread.namespace }, [
      { action: 'thread.create', targetType: 'thread', targetId: thread.id, after: { title: thread.title, participants: thread.participants } },
    ]);
    return threadView(rows[0]);
  });
}
