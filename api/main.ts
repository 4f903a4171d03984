// `npm run api`: the API alone, against an existing PostgreSQL (DATABASE_URL)
// and Temporal (TEMPORAL_ADDRESS). Starts nothing else; scale it out freely:
// API_PROCESSES > 1 serves from that many processes on one port (api/cluster/).
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig, type Config } from '../core/config/config.js';
import { migrate } from '../core/db/migrate.js';
import { closeServer, describeStartupFailure, listen, onShutdownSignal, requireExternalServices } from '../core/embedded/lifecycle.js';
import { createLogger, type Logger } from '../core/logger.js';
import { createApp } from './app.js';
import { runApiPrimary } from './cluster/primary.js';
import { ClusterProcessMetrics } from './cluster/processMetrics.js';
import { warmUpReadPath } from './warmUp.js';
import { warmUpReadConnections } from './warmUpConnections.js';

async function serve(config: Config, logger: Logger): Promise<void> {
  if (!config.MNEMO_API_KEY) logger.warn('MNEMO_API_KEY is unset: only keys stored in api_key are accepted');
  const deps = buildDeps(config, { logger });
  // One of several API processes: /metrics sums them all through the primary.
  const clusterMetrics = cluster.isWorker ? new ClusterProcessMetrics(deps.metrics, process) : null;
  const server = createServer(createApp(deps, clusterMetrics ? { metrics: { processText: clusterMetrics.text } } : {}));
  const shutdown = async () => {
    clusterMetrics?.close();
    await closeServer(server);
    await deps.close();
  };
  onShutdownSignal(logger, shutdown);
  // The primary is gone (killed): nobody hands this process connections any more, so stop.
  if (cluster.isWorker) process.once('disconnect', () => void shutdown().finally(() => process.exit(0)));
  await warmUpReadPath(deps.embedder, logger);
  await warmUpReadConnections(deps, logger);
  await listen(server, config.PORT, config.HOST);
  if (cluster.isPrimary) logger.info({ url: `http://${config.HOST}:${config.PORT}` }, 'API listening');
}

async function main(): Promise<void> {
  const config = requireExternalServices(loadConfig(), 'npm run api');
  const logger = createLogger(config, { process: 'api' });
  if (cluster.isPrimary && config.MIGRATE_ON_START) {
    const result = await migrate(config.DATABASE_URL);
    logger.info({ applied: result.applied }, 'migrations checked (MIGRATE_ON_START=true)');
  }
  if (cluster.isPrimary && config.API_PROCESSES > 1) await runApiPrimary(config, logger);
  else await serve(config, logger);
}

main().catch((err: unknown) => {
  // Before the logger exists (bad config) a plain message is the clearest output.
  process.stderr.write(`${describeStartupFailure(err)}\n`);
  process.exit(1);
});
