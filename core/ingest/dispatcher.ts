import type { Logger } from '../logger.js';

/**
 * Hands acknowledged episodes to Temporal without letting a burst of writes
 * flood it: at most `maxInFlight` starts run at once and at most `maxQueued`
 * wait. An episode that finds the queue full simply stays `pending` in
 * Postgres, where the `reconcile` schedule picks it up — so shedding load
 * here never loses a write.
 */
export class ExtractionDispatcher {
  private readonly queue: string[] = [];
  private inFlight = 0;
  private shed = 0;

  constructor(
    private readonly start: (episodeId: string) => Promise<boolean>,
    private readonly logger: Logger,
    private readonly maxInFlight = 16,
    private readonly maxQueued = 2_000,
  ) {}

  enqueue(episodeId: string): void {
    if (this.queue.length >= this.maxQueued) {
      if (this.shed++ % 1000 === 0) this.logger.warn({ shed: this.shed }, 'extraction start queue full; reconcile will start the rest');
      return;
    }
    this.queue.push(episodeId);
    this.pump();
  }

  get pending(): number {
    return this.queue.length + this.inFlight;
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.inFlight++;
      this.start(id)
        .catch(() => false)
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }
}
