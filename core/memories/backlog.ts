import type { Queryable } from '../db/pool.js';

/** How stale the counted backlog may get before the next write recounts it. */
export const BACKLOG_REFRESH_MS = 500;

/**
 * The extraction backlog (live episodes pending or extracting) as one API
 * process sees it: a `count(*)` over the status index at most every
 * BACKLOG_REFRESH_MS, plus the episodes this process admitted since. Other
 * processes' writes show up at the next count, so the bound is approximate by
 * at most half a second of their writes.
 */
export class ExtractionBacklog {
  private counted: number | null = null;
  private countedAt = -Infinity;
  private admittedSinceCount = 0;
  private counting: Promise<void> | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly limit: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** The last estimate (for logs and metrics). */
  get estimate(): number {
    return (this.counted ?? 0) + this.admittedSinceCount;
  }

  /**
   * Admits `episodes` new ones if the backlog stays within the limit (and
   * counts them), else false. Waits for a count only the first time; later a
   * stale count is refreshed in the background.
   */
  async admit(episodes: number): Promise<boolean> {
    if (this.counted === null) await this.recount();
    else if (this.clock() - this.countedAt > BACKLOG_REFRESH_MS) void this.recount().catch(() => undefined);
    if (this.estimate + episodes > this.limit) return false;
    this.admittedSinceCount += episodes;
    return true;
  }

  private recount(): Promise<void> {
    this.counting ??= (async () => {
      try {
        const startedAt = this.clock();
        const admittedBefore = this.admittedSinceCount;
        const { rows } = await this.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM episode WHERE status IN ('pending', 'extracting') AND forgotten_at IS NULL`,
        );
        this.counted = rows[0].n;
        this.countedAt = startedAt;
        // Admissions during the count may or may not be in it: counting them again errs on the side of refusing.
        this.admittedSinceCount -= admittedBefore;
      } finally {
        this.counting = null;
      }
    })();
    return this.counting;
  }
}
