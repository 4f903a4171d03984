// `npm run api`: the API alone, against an existing PostgreSQL (DATABASE_URL)
// and Temporal (TEMPORAL_ADDRESS). Starts nothing else; scale it out freely.
import { createServer } from 'node:http';
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { migrate } from '../core/db/migrate.js';
import { closeServer, describeStartupFailure, listen, onShutdownSignal, requireExternalServices } from '../core/embedded/lifecycle.js';
import { createLogger } from '../core/logger.js';
import { createApp } from './app.js';

async function main(): Promise<void> {
  const config = requireExternalServices(loadConfig(), 'npm run api');
  const logger = createLogger(config, { process: 'api' });
  if (config.MIGRATE_ON_START) {
    const result = await migrate(config.DATABASE_URL);
    logger.info({ applied: result.applied }, 'migrations checked (MIGRATE_ON_START=true)');
  }
  if (!config.MNEMO_API_KEY) logger.warn('MNEMO_API_KEY is unset: only keys stored in api_key are accepted');
  const deps = buildDeps(config, { logger });
  const server = createServer(createApp(deps));
  onShutdownSignal(logger, async () => {
    await closeServer(server);
    await deps.close();
  });
  await listen(server, config.PORT, config.HOST);
  logger.info({ url: `http://${config.HOST}:${config.PORT}` }, 'API listening');
}

main().catch((err: unknown) => {
  // Before the logger exists (bad config) a plain message is the clearest output.
  process.stderr.write(`${describeStartupFailure(err)}\n`);
  process.exit(1);
});
