// The worker `npm start` runs beside its API, in a process of its own (see
// core/embedded/workerProcess.ts for why). Forked at once, it loads its modules
// and bundles the workflow code while the embedded services boot, then starts
// on the parent's `start` message. It stops on SIGINT/SIGTERM and when the
// parent goes away.
import { loadConfig } from '../core/config/config.js';
import { describeStartupFailure, onShutdownSignal } from '../core/embedded/lifecycle.js';
import { workerStartMessage, type WorkerReport } from '../core/embedded/workerProtocol.js';
import { createLogger } from '../core/logger.js';
import { lowerPriority } from './priority.js';
import type { WorkerProcess } from './process.js';

const report = (message: WorkerReport) => process.send?.(message);

/**
 * How long a worker whose npm start was killed tries to stop cleanly. Its
 * database (the embedded PGlite) may have gone with npm start, so activities
 * in flight may never finish; Temporal gives them to the next worker.
 */
const ORPHANED_STOP_MS = 5_000;

// The same environment npm start loaded its config from; DATABASE_URL and TEMPORAL_ADDRESS come with `start`.
const baseConfig = loadConfig();
const logger = createLogger(baseConfig, { process: 'worker' });
// First, so that every thread this process starts from here on inherits it.
lowerPriority(baseConfig.WORKER_NICE, logger);

const modules = Promise.all([import('./process.js'), import('./runtime.js')]);
modules.catch(() => undefined); // awaited on `start`
if (!baseConfig.WORKFLOW_BUNDLE_PATH && !baseConfig.OTEL_EXPORTER_OTLP_ENDPOINT) {
  // The worker reuses this bundle; with tracing it builds its own (interceptors compiled in).
  void modules.then(([, { workflowBundle }]) => workflowBundle()).catch(() => undefined);
}

/** Set once the worker polls its task queue. */
let worker: WorkerProcess | undefined;

async function start(message: unknown): Promise<WorkerProcess | undefined> {
  try {
    const { DATABASE_URL, TEMPORAL_ADDRESS } = workerStartMessage.parse(message);
    const config = loadConfig({ ...process.env, DATABASE_URL, TEMPORAL_ADDRESS });
    const [{ runWorkerProcess }] = await modules;
    const worker = await runWorkerProcess(config, logger);
    report({ type: 'ready' });
    return worker;
  } catch (err) {
    report({ type: 'failed', message: describeStartupFailure(err) });
    process.exit(1);
  }
}

/**
 * Drains a running worker. One still starting has nothing to drain (no task
 * polled, no activity running), so it is not waited for: its start can take
 * as long as building the workflow bundle or waiting for a Temporal that npm
 * start is stopping, and Ctrl-C waited with it until npm start killed it (30 s).
 */
async function stop(): Promise<void> {
  await worker?.stop();
}

process.once('message', (message: unknown) => {
  void start(message).then((started) => (worker = started));
});
onShutdownSignal(logger, stop);
// npm start ended without stopping this worker (killed): nothing is left to work for.
process.once('disconnect', () => {
  logger.warn('npm start went away: stopping the worker');
  setTimeout(() => process.exit(1), ORPHANED_STOP_MS).unref();
  stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
