/** Gives back an admitted request's slot; calling it twice is harmless. */
export type Release = () => void;

interface Waiter {
  since: number;
  admit: () => void;
}

/**
 * At most `capacity` requests in progress; the rest wait in line for at most
 * `queueTimeoutMs`, then are refused. Bounds what a request can spend waiting
 * for its turn, so under overload the excess is told so at once instead of
 * every request slowing down. The line is first come, first served until its
 * oldest has waited half the timeout; from then on the newest go first
 * (adaptive LIFO): in a sustained overload the requests that are served then
 * start almost at once, while the oldest, which would have been served late
 * anyway, are refused — instead of every one waiting nearly the full timeout.
 */
export class AdmissionGate {
  private active = 0;
  private readonly line: Waiter[] = [];
  /** Requests refused since start (for logs and metrics). */
  refused = 0;

  constructor(
    readonly capacity: number,
    readonly queueTimeoutMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get inProgress(): number {
    return this.active;
  }

  get waiting(): number {
    return this.line.length;
  }

  /** A release once admitted, or null when no slot freed within the queue timeout. */
  enter(): Promise<Release | null> {
    if (this.active < this.capacity) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        since: this.clock(),
        admit: () => {
          clearTimeout(timer);
          resolve(this.releaser());
        },
      };
      const timer = setTimeout(() => {
        const at = this.line.indexOf(waiter);
        if (at >= 0) this.line.splice(at, 1);
        this.refused++;
        resolve(null);
      }, this.queueTimeoutMs);
      this.line.push(waiter);
    });
  }

  private next(): Waiter | undefined {
    const oldest = this.line[0];
    if (!oldest) return undefined;
    const congested = this.clock() - oldest.since > this.queueTimeoutMs / 2;
    return congested ? this.line.pop() : this.line.shift();
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next in line, so `active` never dips below a full gate's capacity.
      const next = this.next();
      if (next) next.admit();
      else this.active--;
    };
  }
}
