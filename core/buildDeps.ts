import type { Config } from './config/config.js';
import { createPool } from './db/pool.js';
import { createPrisma } from './db/prisma.js';
import type { Deps } from './deps.js';
import { createEmbedder, createNameEmbedder } from './embedding/index.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics } from './metrics/index.js';
import { startTracing } from './telemetry/tracing.js';
import { createTemporalHandle } from './temporal/client.js';

export interface BuiltDeps extends Deps {
  close(): Promise<void>;
}

/** Builds every client once from config (DATABASE_URL and TEMPORAL_ADDRESS must be resolved by now). */
export function buildDeps(config: Config, overrides: Partial<Deps> & { logger?: Logger } = {}): BuiltDeps {
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is not set');
  const logger = overrides.logger ?? createLogger(config);
  const pool = overrides.pool ?? createPool(config.DATABASE_URL, config.DB_POOL_MAX);
  // An idle connection dropped by the server (restart, failover) must not crash the process.
  pool.on('error', (err) => logger.warn({ err }, 'idle postgres connection lost'));
  // Connects only when a read is served: processes without reads (workers) open none. A read connection, once open,
  // stays open for READ_CONNECTION_IDLE_MS: closed after the pool's usual 30 s, the first reads after an agent's
  // pause planned the read path's statements again on new connections (bench:idle-burst: 8 agents' reads at once after
  // 40 s idle at 100,000 episodes, p50 179-199 ms against 75-96 ms with the connections kept).
  const readPool = overrides.readPool ?? createPool(config.DATABASE_URL, config.DB_POOL_MAX, { readPath: true, idleTimeoutMillis: config.READ_CONNECTION_IDLE_MS });
  readPool.on('error', (err) => logger.warn({ err }, 'idle postgres connection lost'));
  const telemetryPool = overrides.telemetryPool ?? createPool(config.DATABASE_URL, Math.max(2, Math.ceil(config.DB_POOL_MAX / 2)), { asyncCommit: true });
  telemetryPool.on('error', (err) => logger.warn({ err }, 'idle postgres connection lost'));
  const prisma = overrides.prisma ?? createPrisma(config.DATABASE_URL);
  // Before the Temporal client: its interceptors carry the active span into the workflows it starts.
  const tracing = 'tracing' in overrides ? overrides.tracing : startTracing(config);
  const temporal = overrides.temporal ?? createTemporalHandle(config, undefined, { interceptors: tracing?.clientInterceptors });
  const embedder = overrides.embedder ?? createEmbedder(config);
  const nameEmbedder = overrides.nameEmbedder ?? createNameEmbedder();
  // Scrape-time database queries use the telemetry pool: a scrape never takes a connection from reads or writes.
  const metrics = overrides.metrics ?? createMetrics(telemetryPool, logger);
  return {
    config,
    logger,
    pool,
    readPool,
    telemetryPool,
    prisma,
    temporal,
    embedder,
    nameEmbedder,
    metrics,
    tracing,
    now: overrides.now ?? (() => new Date()),
    async close() {
      // An embedder passed in belongs to the caller (tests share one); ours is closed here.
      const ownEmbedder = overrides.embedder ? undefined : embedder.close?.();
      await Promise.allSettled([pool.end(), readPool.end(), telemetryPool.end(), prisma.$disconnect(), temporal.close(), ownEmbedder]);
      // Last: flushes the spans of everything closed above.
      if (tracing && !overrides.tracing) await tracing.shutdown().catch(() => undefined);
    },
  };
}
