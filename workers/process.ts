import { buildDeps } from '../core/buildDeps.js';
import type { Config } from '../core/config/config.js';
import type { Logger } from '../core/logger.js';
import { startWorker } from './runtime.js';

export interface WorkerProcess {
  /** Stops polling, lets running activities finish, closes the clients. */
  stop(): Promise<void>;
}

/**
 * A worker as a process of its own (`npm run worker`, and the worker `npm
 * start` runs beside its API): the clients, the worker, and an exit with 1 if
 * the worker stops by itself, so that whoever supervises the process restarts it.
 */
export async function runWorkerProcess(config: Config, logger: Logger): Promise<WorkerProcess> {
  const deps = buildDeps(config, { logger });
  const runtime = await startWorker(deps).catch(async (err: unknown) => {
    await deps.close().catch(() => undefined);
    throw err;
  });
  let stopping = false;
  runtime.finished.then(
    () => undefined,
    (err: unknown) => {
      if (stopping) return;
      logger.fatal({ err }, 'worker stopped');
      process.exit(1);
    },
  );
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'worker running');
  return {
    async stop() {
      stopping = true;
      try {
        await runtime.shutdown();
      } finally {
        await deps.close();
      }
    },
  };
}
