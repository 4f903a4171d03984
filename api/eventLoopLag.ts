/**
 * How late this process's event loop runs: a timer due every `intervalMs`
 * records how much later than due it fired. While the API's CPU is the
 * bottleneck (more requests than the process can parse, authenticate and
 * answer), every request waits in the event loop before any line of it runs,
 * so no admission bound further in can see it: connections queued in the
 * kernel, and with three times the machine's capacity offered, answered reads
 * took 28 s at p95 while the read gate's own queue never reached its timeout.
 *
 * Node's `monitorEventLoopDelay` gives a histogram of the same delays; the
 * latest lateness is what a refusal needs, and one timer gives it directly.
 */
export class EventLoopLag {
  private lateMs = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly intervalMs = 50,
    clock: () => number = () => performance.now(),
  ) {
    let due = clock() + intervalMs;
    this.timer = setInterval(() => {
      const now = clock();
      this.lateMs = Math.max(0, now - due);
      due = now + intervalMs;
    }, intervalMs);
    // A measurement only: it must not keep the process (or a test run) alive.
    this.timer.unref();
  }

  /** How late the latest tick ran, in milliseconds. */
  get currentMs(): number {
    return this.lateMs;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
