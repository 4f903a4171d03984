// `npm run migrate`: applies pending SQL migrations to DATABASE_URL.
import { loadConfig } from '../core/config/config.js';
import { migrate } from '../core/db/migrate.js';
import { createLogger } from '../core/logger.js';

const config = loadConfig();
const logger = createLogger(config);
if (!config.DATABASE_URL) {
  logger.fatal('DATABASE_URL is required for npm run migrate (npm start migrates the embedded database itself)');
  process.exit(1);
}
const result = await migrate(config.DATABASE_URL);
logger.info({ applied: result.applied, alreadyApplied: result.alreadyApplied.length }, 'migrations done');
