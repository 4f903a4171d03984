/** Threads as the API shows them (snake_case, like every other resource). */

/** The sender name of the person (not an agent) in a thread. */
export const USER_SENDER = 'user';

export interface ThreadView {
  id: string;
  namespace: string;
  title: string;
  participants: string[];
  created_by: string;
  created_at: string;
  updated_at: string;
  last_message_at: string | null;
  last_sender: string | null;
  /** seq of the newest message; 0 while there is none. */
  last_seq: number;
  message_count: number;
}

export interface ThreadMessageView {
  id: string;
  thread_id: string;
  /** Increasing cursor: the SSE event id, and `after` of the next page. */
  seq: number;
  sender: string;
  content: string;
  created_at: string;
}

export interface ThreadRow {
  id: string;
  namespace: string;
  title: string;
  participants: string[];
  created_by: string;
  created_at: Date;
  updated_at: Date;
  last_message_at: Date | null;
  last_sender: string | null;
  last_seq: number;
  message_count: number;
}

export interface ThreadMessageRow {
  id: string;
  thread_id: string;
  seq: number;
  sender: string;
  content: string;
  created_at: Date;
}

export const THREAD_COLUMNS =
  'id, namespace, title, participants, created_by, created_at, updated_at, last_message_at, last_sender, last_seq, message_count';
export const MESSAGE_COLUMNS = 'id, thread_id, seq, sender, content, created_at';

export function threadView(row: ThreadRow): ThreadView {
  return {
    ...row,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_message_at: row.last_message_at?.toISOString() ?? null,
  };
}

export function messageView(row: ThreadMessageRow): ThreadMessageView {
  return { ...row, created_at: row.created_at.toISOString() };
}
