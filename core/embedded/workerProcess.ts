import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.js';
import { StartupError } from './errors.js';
import { workerReport, type WorkerStartMessage } from './workerProtocol.js';

/**
 * `npm start`'s worker, in a process of its own beside the API's.
 *
 * In the API's process the worker's activities (the heuristic extraction
 * above all) shared one event loop with the HTTP handlers: bench:isolation
 * --embedded measured read p95 522 ms with extraction running against 85-128
 * ms idle (ratio 4.1-6.1); as a process at WORKER_NICE, where the kernel gives
 * the reads the CPU first (as in the docker-compose deployment), 156-203 ms
 * (ratio 1.4-1.8).
 *
 * A worker that stops by itself is started again (after 1 s, doubling up to
 * 30 s while it keeps failing): extraction is durable in Temporal, so a new
 * worker picks up where the last one stopped, and the API keeps serving meanwhile.
 */
export interface WorkerSupervisor {
  /** The running worker's pid (changes when it is restarted). */
  readonly pid: number | undefined;
  /** Sends the services' addresses; resolves once the worker polls its task queue. */
  start(services: Omit<WorkerStartMessage, 'type'>): Promise<void>;
  /** Stops the worker (SIGTERM: it lets running activities finish) and keeps it stopped. */
  stop(): Promise<void>;
}

export interface WorkerSupervisorOptions {
  logger: Logger;
  /** Restart delays: the first, and the cap it doubles up to. */
  restartDelayMs?: { first: number; max: number };
  /** A worker that ran this long before it stopped is restarted after the first delay again. */
  stableAfterMs?: number;
  /** How long a stopping worker gets before SIGKILL. */
  stopTimeoutMs?: number;
}

/**
 * How long to wait before starting a worker that stopped after `uptimeMs`:
 * the first delay, doubled after each quick failure up to the cap, and the
 * first again once a worker had run for `stableAfterMs`.
 */
export function restartDelay(previous: number | undefined, uptimeMs: number, o: { first: number; max: number; stableAfterMs: number }): number {
  if (previous === undefined || uptimeMs >= o.stableAfterMs) return o.first;
  return Math.min(previous * 2, o.max);
}

/** The child's entry beside this module's extension: TypeScript under tsx, JavaScript when compiled. */
function childEntry(): string {
  const here = fileURLToPath(import.meta.url);
  return path.resolve(path.dirname(here), `../../workers/child${path.extname(here)}`);
}

/** Forks the worker process now (it loads and bundles while the services start); `start` hands it the addresses. */
export function forkWorker(options: WorkerSupervisorOptions): WorkerSupervisor {
  const { logger } = options;
  const delays = options.restartDelayMs ?? { first: 1_000, max: 30_000 };
  const stableAfterMs = options.stableAfterMs ?? 60_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
  let child: ChildProcess = spawnChild();
  let services: Omit<WorkerStartMessage, 'type'> | undefined;
  let stopping = false;
  let lastDelay: number | undefined;
  let restartTimer: NodeJS.Timeout | undefined;

  function spawnChild(): ChildProcess {
    // execArgv as this process has it (`--import tsx` under npm start); stdout and stderr are npm start's.
    // Its own process group, as the Temporal dev server's: a terminal's Ctrl-C reaches npm start only,
    // which stops the worker after the API; had both received it, the worker would have taken npm
    // start's SIGTERM a second later as a second signal and exited without draining its activities.
    const worker = fork(childEntry(), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true });
    // Without a listener, a failed fork or a message to an ended worker would throw out of npm start.
    worker.on('error', (err) => logger.error({ err, pid: worker.pid }, 'worker process error'));
    return worker;
  }

  /** Resolves when `worker` reports ready; rejects when it fails or exits first. */
  function ready(worker: ChildProcess, message: WorkerStartMessage): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onMessage = (raw: unknown) => {
        const parsed = workerReport.safeParse(raw);
        if (!parsed.success) return;
        cleanup();
        if (parsed.data.type === 'ready') resolve();
        else reject(new StartupError(`the worker could not start: ${parsed.data.message}`));
      };
      const exitedEarly = (how: string | number | null) => new StartupError(`the worker process exited (${how}) before it was ready`);
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        cleanup();
        reject(exitedEarly(signal ?? code));
      };
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('exit', onExit);
      };
      if (worker.exitCode !== null || worker.signalCode !== null) {
        reject(exitedEarly(worker.signalCode ?? worker.exitCode));
        return;
      }
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      worker.send(message);
    });
  }

  /** From the first `ready` on: a worker that exits while not asked to is replaced. */
  function supervise(worker: ChildProcess): void {
    const since = performance.now();
    worker.once('exit', (code, signal) => {
      if (stopping || worker !== child) return;
      const delay = restartDelay(lastDelay, performance.now() - since, { ...delays, stableAfterMs });
      lastDelay = delay;
      logger.error({ pid: worker.pid, code, signal, restartInMs: delay }, 'the worker process stopped; starting another');
      restartTimer = setTimeout(() => void restart(), delay);
    });
  }

  async function restart(): Promise<void> {
    restartTimer = undefined;
    if (stopping || !services) return;
    child = spawnChild();
    const worker = child;
    // Watched before it is ready: a replacement that fails to start is replaced in turn, with the longer delay.
    supervise(worker);
    try {
      await ready(worker, { type: 'start', ...services });
      logger.info({ pid: worker.pid }, 'worker process restarted');
    } catch (err) {
      if (!stopping) logger.error({ err }, 'the restarted worker did not start');
    }
  }

  return {
    get pid() {
      return child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    async start(addresses) {
      services = addresses;
      await ready(child, { type: 'start', ...addresses });
      supervise(child);
    },
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const worker = child;
      if (worker.exitCode !== null || worker.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      const killTimer = setTimeout(() => {
        logger.warn({ pid: worker.pid }, `the worker did not stop within ${stopTimeoutMs} ms: killing it`);
        worker.kill('SIGKILL');
      }, stopTimeoutMs);
      worker.kill('SIGTERM');
      await exited;
      clearTimeout(killTimer);
    },
  };
}
