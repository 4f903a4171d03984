import type { Logger } from '../logger.js';

export interface DispatcherLimits {
  /** Starts running at once. */
  maxInFlight: number;
  /** Episodes waiting for a start; beyond this they stay `pending` for reconcile. */
  maxQueued: number;
  /** Sustained starts per second (a token bucket holding `maxInFlight` tokens). */
  startsPerSecond: number;
}

const DEFAULT_DISPATCHER_LIMITS: DispatcherLimits = { maxInFlight: 16, maxQueued: 2_000, startsPerSecond: 100 };

/**
 * Hands acknowledged episodes to Temporal without letting a burst of writes
 * flood it. Starts are paced: workers extract tens of episodes a second, so
 * starting thousands a second during a burst only moves CPU from the
 * acknowledgements callers wait for to a backlog nobody waits for. An episode
 * that finds the queue full simply stays `pending` in Postgres, where the
 * `reconcile` schedule picks it up — so shedding load here never loses a write.
 */
export class ExtractionDispatcher {
  private readonly queue: string[] = [];
  private readonly limits: DispatcherLimits;
  private inFlight = 0;
  private shed = 0;
  private tokens: number;
  private refilledAt: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly start: (episodeId: string) => Promise<boolean>,
    private readonly logger: Logger,
    limits: Partial<DispatcherLimits> = {},
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.limits = { ...DEFAULT_DISPATCHER_LIMITS, ...limits };
    this.tokens = this.limits.maxInFlight;
    this.refilledAt = this.clock();
  }

  enqueue(episodeId: string): void {
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

  private refill(): void {
    const now = this.clock();
    const capacity = this.limits.maxInFlight;
    this.tokens = Math.min(capacity, this.tokens + ((now - this.refilledAt) / 1000) * this.limits.startsPerSecond);
    this.refilledAt = now;
  }

  private pump(): void {
    this.refill();
    while (this.inFlight < this.limits.maxInFlight && this.queue.length > 0 && this.tokens >= 1) {
      const id = this.queue.shift()!;
      this.tokens -= 1;
      this.inFlight++;
      this.start(id)
        .catch(() => false)
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
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
