/** What the lock needs to know of a connection. */
export interface SessionHolder {
  /** Served before the others waiting (a person waits on a read; extraction and telemetry can). */
  readonly readsFirst: boolean;
}

interface Waiter<T> {
  holder: T;
  since: number;
  grant: () => void;
  deny: (err: Error) => void;
}

/**
 * The lock on PGlite's single session, re-entrant for its owner (a
 * transaction keeps it until it ends). When it passes on, the oldest waiting
 * read goes first, unless some other waiter has waited `starvationMs` or
 * more: then the oldest waiter of all, so writes and extraction still move
 * under a steady stream of reads.
 *
 * Why reads first: under overload the session is busy all the time, and a
 * read's five or so statements each queued behind the extraction batches
 * that arrived before it (test/overload.test.ts on the embedded default,
 * answered reads' p99 0.61-0.85 s first come, first served, 0.37-0.82 s with
 * reads first; README, "Behaviour under overload").
 */
export class SessionLock<T extends SessionHolder> {
  private owner: T | null = null;
  private waiters: Array<Waiter<T>> = [];

  constructor(
    private readonly starvationMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  acquire(holder: T): Promise<void> {
    if (this.owner === null || this.owner === holder) {
      this.owner = holder;
      return Promise.resolve();
    }
    return new Promise((grant, deny) => this.waiters.push({ holder, since: this.clock(), grant, deny }));
  }

  /** On shutdown nobody waits any more. */
  denyAll(err: Error): void {
    for (const w of this.waiters.splice(0)) w.deny(err);
  }

  release(holder: T): void {
    if (this.owner !== holder) return;
    const next = this.next();
    this.owner = next?.holder ?? null;
    next?.grant();
  }

  ownedBy(holder: T): boolean {
    return this.owner === holder;
  }

  /** A closed connection gives up its place in the queue. */
  forget(holder: T): void {
    this.waiters = this.waiters.filter((w) => w.holder !== holder);
  }

  private next(): Waiter<T> | undefined {
    const oldestOther = this.waiters.find((w) => !w.holder.readsFirst);
    const starving = oldestOther !== undefined && this.clock() - oldestOther.since >= this.starvationMs;
    const read = starving ? -1 : this.waiters.findIndex((w) => w.holder.readsFirst);
    return read > 0 ? this.waiters.splice(read, 1)[0] : this.waiters.shift();
  }
}
