import type { Queryable } from '../db/pool.js';
import type { Logger } from '../logger.js';

export interface DispatcherLimits {
  /** Starts running at once. */
  maxInFlight: number;
  /** Episodes waiting for a start; beyond this they stay `pending` for reconcile. */
  maxQueued: number;
  /** Sustained starts per second (a token bucket holding `maxInFlight` tokens). */
  startsPerSecond: number;
  /** Episodes this dispatcher started that no worker has claimed yet, at most (0: no bound). */
  maxUnclaimed: number;
}

const DEFAULT_DISPATCHER_LIMITS: DispatcherLimits = { maxInFlight: 16, maxQueued: 2_000, startsPerSecond: 100, maxUnclaimed: 64 };

/** Of the given started episodes, those no worker has claimed yet (still `pending`). */
export type UnclaimedProbe = (episodeIds: string[]) => Promise<string[]>;

/** The UnclaimedProbe of a database: beginExtraction moves a claimed episode out of `pending`. */
export async function unclaimedEpisodes(db: Queryable, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM episode WHERE id = ANY($1::uuid[]) AND status = 'pending'`, [ids]);
  return rows.map((r) => r.id);
}

/** How often a full start window asks which of its episodes workers have claimed. */
export const CLAIM_PROBE_INTERVAL_MS = 200;
/** A started episode still unclaimed after this long stops holding a place in the window (reconcile has it). */
export const UNCLAIMED_MAX_AGE_MS = 120_000;

/**
 * Hands acknowledged episodes to Temporal without letting a burst of writes
 * flood it. Starts are paced: workers extract tens of episodes a second, so
 * starting thousands a second during a burst only moves CPU from the
 * acknowledgements callers wait for to a backlog nobody waits for. An episode
 * that finds the queue full simply stays `pending` in Postgres, where the
 * `reconcile` schedule picks it up — so shedding load here never loses a write.
 *
 * With a probe, starts also follow the workers' pace: at most `maxUnclaimed`
 * started episodes wait in Temporal for a worker to claim them, and a full
 * window asks the database (every CLAIM_PROBE_INTERVAL_MS) which have been
 * claimed. A workflow started costs the Temporal server about as much CPU as
 * a worker's claim of it; at 500 writes/s beside one worker, starting 100 a
 * second (five times what it extracts) left acknowledgement p99 at 272 ms,
 * starting them as they were claimed at 77–87 ms.
 */
export class ExtractionDispatcher {
  private readonly queue: string[] = [];
  private readonly limits: DispatcherLimits;
  private inFlight = 0;
  private shed = 0;
  private tokens: number;
  private refilledAt: number;
  private timer: NodeJS.Timeout | undefined;
  /** Started, not yet claimed: episode id → when it was started. */
  private readonly unclaimed = new Map<string, number>();
  private probing = false;
  private probeTimer: NodeJS.Timeout | undefined;
  private probedAt = Number.NEGATIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly start: (episodeId: string) => Promise<boolean>,
    private readonly logger: Logger,
    limits: Partial<DispatcherLimits> = {},
    private readonly clock: () => number = () => performance.now(),
    private readonly probe?: UnclaimedProbe,
  ) {
    this.limits = { ...DEFAULT_DISPATCHER_LIMITS, ...limits };
    this.tokens = this.limits.maxInFlight;
    this.refilledAt = this.clock();
  }

  enqueue(episodeId: string): void {
    if (this.stopped) return;
    if (this.queue.length >= this.limits.maxQueued) {
      if (this.shed++ % 1000 === 0) this.logger.warn({ shed: this.shed }, 'extraction start queue full; reconcile will start the rest');
      return;
    }
    this.queue.push(episodeId);
    this.pump();
  }

  get pending(): number {
    return this.queue.length + this.inFlight;
  }

  /** Episodes left to reconcile because the queue was full. */
  get shedCount(): number {
    return this.shed;
  }

  /** Started episodes no worker had claimed at the last look. */
  get unclaimedCount(): number {
    return this.unclaimed.size;
  }

  /**
   * Starts nothing more: the queue is dropped (those episodes stay `pending`
   * for the next reconcile) and the timers cleared. Starts already running finish.
   */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    clearTimeout(this.timer);
    clearTimeout(this.probeTimer);
    this.timer = this.probeTimer = undefined;
  }

  /** Room for another start: those running count, since each becomes an unclaimed episode. */
  private windowOpen(): boolean {
    return !this.probe || this.limits.maxUnclaimed <= 0 || this.unclaimed.size + this.inFlight < this.limits.maxUnclaimed;
  }

  /** Asks which started episodes are still unclaimed, at most every CLAIM_PROBE_INTERVAL_MS, then starts more. */
  private scheduleProbe(): void {
    if (!this.probe || this.stopped || this.probing || this.probeTimer !== undefined) return;
    const waitMs = Math.max(0, this.probedAt + CLAIM_PROBE_INTERVAL_MS - this.clock());
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      void this.runProbe(this.probe!);
    }, waitMs);
    this.probeTimer.unref();
  }

  private async runProbe(probe: UnclaimedProbe): Promise<void> {
    this.probing = true;
    this.probedAt = this.clock();
    const asked = [...this.unclaimed.keys()];
    try {
      const still = new Set(await probe(asked));
      const now = this.clock();
      for (const id of asked) if (!still.has(id) || now - this.unclaimed.get(id)! > UNCLAIMED_MAX_AGE_MS) this.unclaimed.delete(id);
    } catch (err) {
      // Without an answer the window would stay shut: open it (the rate and the queue still bound the starts).
      this.logger.warn({ err }, 'could not read which extractions workers have claimed; starting without waiting for them');
      this.unclaimed.clear();
    } finally {
      this.probing = false;
      this.pump();
    }
  }

  private refill(): void {
    const now = this.clock();
    const capacity = this.limits.maxInFlight;
    this.tokens = Math.min(capacity, this.tokens + ((now - this.refilledAt) / 1000) * this.limits.startsPerSecond);
    this.refilledAt = now;
  }

  private pump(): void {
    if (this.stopped) return;
    this.refill();
    while (this.inFlight < this.limits.maxInFlight && this.queue.length > 0 && this.tokens >= 1 && this.windowOpen()) {
      const id = this.queue.shift()!;
      this.tokens -= 1;
      this.inFlight++;
      this.start(id)
        .catch(() => false)
        .then((started) => {
          if (started && this.probe) this.unclaimed.set(id, this.clock());
        })
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
    if (this.queue.length > 0 && !this.windowOpen()) {
      this.scheduleProbe();
      return;
    }
    if (this.queue.length > 0 && this.tokens < 1 && this.timer === undefined) {
      const waitMs = Math.ceil(((1 - this.tokens) / this.limits.startsPerSecond) * 1000);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, waitMs);
      // A queued start must not keep a stopping process alive: the episode is durable and reconcile starts it.
      this.timer.unref();
    }
  }
}
