/** More unexpected exits than this within the window: something is wrong with every start, so stop rather than loop. */
export const MAX_RESTARTS = 5;
export const RESTART_WINDOW_MS = 60_000;

export type ExitVerdict =
  | { action: 'restart' }
  | { action: 'stop'; reason: string };

/**
 * What the primary does when an API process exits unasked. Before any process
 * has listened, an exit means the configuration or the services are wrong
 * (a port taken, a database refused): all stop. Once one has listened, the
 * configuration is proven, so an exit (a crash, an out-of-memory kill, a kill
 * while a second process was still warming up) is started again, unless exits
 * come too often to be anything but a loop.
 */
export class RestartPolicy {
  private someoneListened = false;
  private readonly exits: number[] = [];

  constructor(
    private readonly maxRestarts = MAX_RESTARTS,
    private readonly windowMs = RESTART_WINDOW_MS,
  ) {}

  onListening(): void {
    this.someoneListened = true;
  }

  onExit(now: number): ExitVerdict {
    if (!this.someoneListened) {
      return { action: 'stop', reason: 'an API process exited before any served: stopping all (its own output above says why)' };
    }
    this.exits.push(now);
    while (this.exits.length && this.exits[0] <= now - this.windowMs) this.exits.shift();
    if (this.exits.length > this.maxRestarts) {
      return { action: 'stop', reason: `API processes exited ${this.exits.length} times within ${this.windowMs / 1000} s: stopping all` };
    }
    return { action: 'restart' };
  }
}
