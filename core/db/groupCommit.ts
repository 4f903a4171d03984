interface Pending<T> {
  rows: T[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: concurrent callers' rows are written together, a batch per
 * round trip, with at most `maxInFlight` writes at a time. Under load one
 * INSERT (and one WAL flush) serves many requests; alone, a caller waits only
 * for its own write. A failing batch is retried caller by caller, so one bad
 * row fails only its own request.
 */
export class GroupCommit<T> {
  private readonly queue: Array<Pending<T>> = [];
  private inFlight = 0;

  constructor(
    private readonly write: (rows: T[]) => Promise<void>,
    private readonly maxInFlight = 2,
    private readonly maxRowsPerWrite = 500,
  ) {}

  add(rows: T[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ rows, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch: Array<Pending<T>> = [];
      let size = 0;
      while (this.queue.length > 0 && (batch.length === 0 || size + this.queue[0].rows.length <= this.maxRowsPerWrite)) {
        const next = this.queue.shift()!;
        size += next.rows.length;
        batch.push(next);
      }
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async flush(batch: Array<Pending<T>>): Promise<void> {
    try {
      await this.write(batch.flatMap((p) => p.rows));
      batch.forEach((p) => p.resolve());
    } catch (err) {
      if (batch.length === 1) {
        batch[0].reject(err);
        return;
      }
      for (const p of batch) {
        try {
          await this.write(p.rows);
          p.resolve();
        } catch (own) {
          p.reject(own);
        }
      }
    }
  }
}
