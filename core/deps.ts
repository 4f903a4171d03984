import type { Config } from './config/config.js';
import type { Pool } from './db/pool.js';
import type { PrismaClient } from './db/prisma.js';
import type { EmbeddingProvider } from './extraction/types.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics/metrics.js';
import type { Tracing } from './telemetry/tracing.js';
import type { TemporalHandle } from './temporal/client.js';

/** Everything the API and the activities need, built once at start-up and passed in. */
export interface Deps {
  config: Config;
  logger: Logger;
  pool: Pool;
  /** Connections of the read path (search, context, entities), with its session settings (see createPool). */
  readPool: Pool;
  /** Connections with asynchronous commit, for stage runs and derived data (see createPool). */
  telemetryPool: Pool;
  prisma: PrismaClient;
  temporal: TemporalHandle;
  /** Episode, fact and query text. */
  embedder: EmbeddingProvider;
  /** Entity names (spelling, not meaning). */
  nameEmbedder: EmbeddingProvider;
  /** This process's Prometheus registry and recorders (`GET /metrics`). */
  metrics: Metrics;
  /** OpenTelemetry tracing, when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing?: Tracing;
  /** The clock; tests pass a fixed one. */
  now: () => Date;
}
