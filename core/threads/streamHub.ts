import type { Queryable } from '../db/pool.js';
import type { Logger } from '../logger.js';
import { MESSAGE_COLUMNS, messageView, type ThreadMessageRow, type ThreadMessageView } from './rows.js';

export interface StreamHubOptions {
  /** Pause between two reads while no thread has a backlog. */
  intervalMs: number;
  /** Messages read per thread per round; a thread with more is read again at once. */
  batchSize: number;
  logger: Logger;
}

/** One open stream: the thread it follows and the newest seq it has received. */
interface Subscriber {
  threadId: string;
  cursor: number;
  deliver(messages: ThreadMessageView[]): void;
}

/**
 * Feeds every SSE stream of this process from PostgreSQL with ONE poller:
 * each round reads, for every followed thread, the messages after the lowest
 * cursor of its streams (one statement, an index range per thread), and hands
 * each stream the ones after its own cursor. Delivery comes from the
 * database, not from this process's memory, so a message posted through any
 * API process reaches streams held by every other one within a round; and a
 * stream resuming from an old seq is caught up by the same path.
 *
 * Why polling and not LISTEN/NOTIFY: on the embedded PGlite server every
 * connection shares one backend session and a notification reaches the
 * connection that happens to run at commit, not the listener (measured; see
 * core/embedded/sessionState.ts). One path for both databases; an idle round
 * costs one short index-only statement per interval and process.
 */
export class ThreadStreamHub {
  private readonly subscribers = new Set<Subscriber>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly db: Queryable,
    private readonly options: StreamHubOptions,
  ) {}

  /** Open streams in this process. */
  get size(): number {
    return this.subscribers.size;
  }

  /**
   * Follows a thread from `afterSeq` on: `deliver` gets every later message,
   * in seq order, each once. Returns the function that stops it.
   */
  subscribe(threadId: string, afterSeq: number, deliver: (messages: ThreadMessageView[]) => void): () => void {
    const subscriber: Subscriber = { threadId, cursor: afterSeq, deliver };
    this.subscribers.add(subscriber);
    // A resuming stream is caught up at once rather than after a whole interval.
    if (!this.polling) this.schedule(0);
    return () => {
      this.subscribers.delete(subscriber);
      if (this.subscribers.size === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
      }
    };
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.round();
    }, delayMs);
    this.timer.unref();
  }

  /** One read for all followed threads, then the next round (sooner when a thread has more waiting). */
  private async round(): Promise<void> {
    if (this.subscribers.size === 0) return;
    this.polling = true;
    let backlog = false;
    try {
      backlog = await this.deliverNew();
    } catch (err) {
      // Cursors did not move: the next round reads the same messages again.
      this.options.logger.warn({ err }, 'thread stream poll failed');
    } finally {
      this.polling = false;
    }
    if (this.subscribers.size > 0) this.schedule(backlog ? 0 : this.options.intervalMs);
  }

  /** Reads and hands out what is new; true when some thread had a full batch (more may wait). */
  private async deliverNew(): Promise<boolean> {
    const lowest = new Map<string, number>();
    for (const s of this.subscribers) lowest.set(s.threadId, Math.min(s.cursor, lowest.get(s.threadId) ?? Infinity));
    const threadIds = [...lowest.keys()];
    const { rows } = await this.db.query<ThreadMessageRow>(
      `SELECT m.* FROM unnest($1::uuid[], $2::bigint[]) AS f(thread_id, after_seq)
       CROSS JOIN LATERAL (
         SELECT ${MESSAGE_COLUMNS} FROM thread_message
          WHERE thread_id = f.thread_id AND seq > f.after_seq
          ORDER BY seq LIMIT $3
       ) m
       ORDER BY m.thread_id, m.seq`,
      [threadIds, threadIds.map((id) => lowest.get(id)), this.options.batchSize],
    );
    if (rows.length === 0) return false;
    const byThread = new Map<string, ThreadMessageView[]>();
    for (const row of rows) {
      const list = byThread.get(row.thread_id) ?? [];
      list.push(messageView(row));
      byThread.set(row.thread_id, list);
    }
    // Snapshot: a stream may end (and unsubscribe) while it is being delivered to.
    for (const s of [...this.subscribers]) {
      const fresh = byThread.get(s.threadId)?.filter((m) => m.seq > s.cursor);
      if (!fresh?.length || !this.subscribers.has(s)) continue;
      s.cursor = fresh[fresh.length - 1].seq;
      try {
        s.deliver(fresh);
      } catch (err) {
        this.options.logger.warn({ err, threadId: s.threadId }, 'thread stream delivery failed');
      }
    }
    return [...byThread.values()].some((list) => list.length >= this.options.batchSize);
  }
}
