import type { Pool } from '../db/pool.js';
import type { Logger } from '../logger.js';
import { registerDatabaseMetrics } from './databaseMetrics.js';
import { Metrics } from './metrics.js';

export { Metrics } from './metrics.js';

/** A process's metrics: its own registry with the process, HTTP and admission families, and the database's. */
export function createMetrics(pool: Pool, logger: Logger): Metrics {
  const metrics = new Metrics();
  registerDatabaseMetrics(metrics, pool, (err) => logger.warn({ err }, 'database metrics snapshot failed; /metrics keeps the previous values'));
  return metrics;
}
