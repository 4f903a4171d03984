// `npm run worker`: a Temporal worker alone, against an existing PostgreSQL
// (DATABASE_URL) and Temporal (TEMPORAL_ADDRESS). Run more of them for more
// extraction throughput.
import { loadConfig } from '../core/config/config.js';
import { describeStartupFailure, onShutdownSignal, requireExternalServices } from '../core/embedded/lifecycle.js';
import { createLogger } from '../core/logger.js';
import { lowerPriority } from './priority.js';
import { runWorkerProcess } from './process.js';

async function main(): Promise<void> {
  const config = requireExternalServices(loadConfig(), 'npm run worker');
  const logger = createLogger(config, { process: 'worker' });
  lowerPriority(config.WORKER_NICE, logger);
  const worker = await runWorkerProcess(config, logger);
  onShutdownSignal(logger, () => worker.stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`${describeStartupFailure(err)}\n`);
  process.exit(1);
});
