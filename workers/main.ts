// `npm run worker`: a Temporal worker alone, against an existing PostgreSQL
// (DATABASE_URL) and Temporal (TEMPORAL_ADDRESS). Run more of them for more
// extraction throughput.
import os from 'node:os';
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { describeStartupFailure, onShutdownSignal, requireExternalServices } from '../core/embedded/lifecycle.js';
import { createLogger, type Logger } from '../core/logger.js';
import { startWorker } from './runtime.js';

/** Extraction is background work: on a host shared with the API, acknowledgements and reads should win the CPU. */
function lowerPriority(nice: number, logger: Logger): void {
  try {
    os.setPriority(nice);
  } catch (err) {
    // Raising priority (a negative nice) needs privileges; running at the default is still correct.
    logger.warn({ err, nice }, 'could not set the worker CPU priority');
  }
}

async function main(): Promise<void> {
  const config = requireExternalServices(loadConfig(), 'npm run worker');
  const logger = createLogger(config, { process: 'worker' });
  // Before the worker starts its own threads (Temporal core, onnxruntime): they inherit the priority.
  lowerPriority(config.WORKER_NICE, logger);
  const deps = buildDeps(config, { logger });
  const runtime = await startWorker(deps);
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'worker running');
  onShutdownSignal(logger, async () => {
    await runtime.shutdown();
    await deps.close();
  });
  // A worker that stops by itself (fatal error) takes the process down so the supervisor restarts it.
  runtime.finished.then(
    () => undefined,
    (err: unknown) => {
      logger.fatal({ err }, 'worker stopped');
      process.exit(1);
    },
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${describeStartupFailure(err)}\n`);
  process.exit(1);
});
