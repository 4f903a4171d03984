import os from 'node:os';
import path from 'node:path';
import { msToNumber, type Duration } from '@temporalio/common/lib/time.js';
import { z } from 'zod';

/** Width of every `vector(N)` column in the migrations; EMBEDDING_DIM must match it. */
export const SCHEMA_EMBEDDING_DIM = 384;

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const port = z.coerce
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .min(1, 'must be between 1 and 65535')
  .max(65535, 'must be between 1 and 65535');

/** A duration such as `90s`, `1h`, `72h`, `7d` (Temporal's format), parsed to milliseconds. */
const duration = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?\s*(ms|s|m|h|d)$/, 'must be a duration such as 30s, 15m, 1h or 3d')
  .transform((v) => msToNumber(v.replace(/\s+/g, '') as Duration))
  .refine((v) => v > 0, 'must be longer than 0');

/** A five-field cron expression (minute hour day-of-month month day-of-week), UTC. */
const cron = z
  .string()
  .trim()
  .regex(/^(\S+\s+){4}\S+$/, 'must be a five-field cron expression such as "0 3 * * *"');

/**
 * Every environment variable Mnemo reads, with its default. Parsed once at
 * start-up (`loadConfig`) and passed down; nothing else reads process.env.
 */
export const configSchema = z.object({
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  TEMPORAL_ADDRESS: optionalString.pipe(
    z.string().regex(/^[^\s:/]+:\d+$/, 'must be host:port, e.g. localhost:7233').optional(),
  ),
  TEMPORAL_NAMESPACE: z.string().trim().min(1, 'must not be empty').default('default'),
  TEMPORAL_TASK_QUEUE: z.string().trim().min(1, 'must not be empty').default('mnemo-extraction'),
  TEMPORAL_CLI_PATH: optionalString,
  TEMPORAL_UI_PORT: port.default(8233),
  DATA_DIR: z.string().trim().min(1, 'must not be empty').default('./.mnemo'),
  PORT: port.default(8080),
  HOST: z.string().trim().min(1, 'must not be empty').default('127.0.0.1'),
  MNEMO_API_KEY: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  LLM_PROVIDER: z.enum(['heuristic', 'openai'], { error: 'must be one of: heuristic, openai' }).default('heuristic'),
  /** How extraction stages run: `activities` (each its own activity task, with input and timing in the UI) or `local` (local activities: markers in the history, no task round trips). Unset: activities for model providers, local for heuristic. */
  EXTRACTION_STAGES: z.enum(['activities', 'local'], { error: 'must be one of: activities, local' }).optional(),
  /** Local activities (extraction stages run locally, EXTRACTION_STAGES) one worker runs at once; the default and why: localActivityConcurrency. */
  EXTRACTION_CONCURRENCY: z.coerce.number({ error: 'must be a number' }).int().min(1, 'must be at least 1').max(500, 'must be at most 500').optional(),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalString.pipe(z.url({ error: 'must be a URL' }).optional()),
  LLM_MODEL: z.string().trim().min(1, 'must not be empty').default('gpt-4o-mini'),
  LLM_TIMEOUT_MS: z.coerce.number({ error: 'must be a number' }).int().min(100, 'must be at least 100').default(30_000),
  /** local: all-MiniLM-L6-v2 in-process (ONNX); hash: feature hashing, no model needed; openai: an embeddings endpoint. */
  EMBEDDING_PROVIDER: z.enum(['local', 'hash', 'openai'], { error: 'must be one of: local, hash, openai' }).default('local'),
  EMBEDDING_MODEL: optionalString,
  /** Folder of the local model (`npm run setup:model` builds it there). */
  EMBEDDING_MODEL_DIR: optionalString,
  EMBEDDING_DIM: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .refine((v) => v === SCHEMA_EMBEDDING_DIM, {
      message: `must be ${SCHEMA_EMBEDDING_DIM} (the width of the vector columns in the migrations)`,
    })
    .default(SCHEMA_EMBEDDING_DIM),
  DB_POOL_MAX: z.coerce.number({ error: 'must be a number' }).int().min(2, 'must be at least 2').max(200, 'must be at most 200').default(20),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of: fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  /** Sustained rate at which an API process starts extraction workflows; a burst above it waits or is left to reconcile. */
  EXTRACTION_STARTS_PER_SECOND: z.coerce.number({ error: 'must be a number' }).int().min(1, 'must be at least 1').max(10_000, 'must be at most 10000').default(100),
  /** Extractions an API process has started that no worker has claimed yet, at most (core/ingest/dispatcher.ts); 0 starts at the rate alone. */
  EXTRACTION_START_WINDOW: z.coerce.number({ error: 'must be a number' }).int().min(0, 'must be at least 0').max(100_000, 'must be at most 100000').default(64),
  /** CPU priority of `npm run worker` processes: extraction is background work, so on a shared host acknowledgements and reads come first. */
  WORKER_NICE: z.coerce.number({ error: 'must be a number' }).int().min(-20, 'must be at least -20').max(19, 'must be at most 19').default(10),
  BODY_LIMIT: z.string().trim().regex(/^\d+(b|kb|mb)$/i, 'must look like 100kb or 1mb').default('1mb'),
  /** Overload (api/overload.ts): past this many episodes waiting for or in extraction, writes answer 503 with Retry-After and store nothing. */
  MAX_PENDING_EPISODES: z.coerce.number({ error: 'must be a number' }).int().min(1, 'must be at least 1').default(5_000),
  /** Overload: reads (every GET under /v1, search, context) served at once by an API process; more wait in line. Unset: DB_POOL_MAX (the read pool's size). */
  READ_CONCURRENCY: z.coerce.number({ error: 'must be a number' }).int().min(1, 'must be at least 1').max(200, 'must be at most 200').optional(),
  /**
   * How long an idle read connection stays open. Each one holds the read path's planned statements and its backend's
   * warm caches; reopened, its first reads plan them again (core/db/pool.ts).
   */
  READ_CONNECTION_IDLE_MS: z.coerce.number({ error: 'must be a number' }).int().min(1_000, 'must be at least 1000').max(86_400_000, 'must be at most 86400000').default(600_000),
  /**
   * Read connections opened before the API listens, each running every question shape agents send once, so the
   * first reads after a start do not plan statements and run cold code together (api/warmUpConnections.ts). 0: none.
   */
  READ_WARM_CONNECTIONS: z.coerce.number({ error: 'must be a number' }).int().min(0, 'must be at least 0').max(200, 'must be at most 200').default(8),
  /** Overload: a read that waits longer than this for its turn answers 503 with Retry-After instead of waiting on. */
  READ_QUEUE_TIMEOUT_MS: z.coerce.number({ error: 'must be a number' }).int().min(1, 'must be at least 1').max(60_000, 'must be at most 60000').default(500),
  /**
   * Overload: while the API process's event loop runs later than this, reads answer 503 with Retry-After before any
   * work (api/overload.ts). 0 (the default) turns it off: at 100 ms one slow request's late tick refused the reads
   * right after it, on a busy test machine too (README, Behaviour under overload).
   */
  READ_MAX_EVENT_LOOP_LAG_MS: z.coerce.number({ error: 'must be a number' }).int().min(0, 'must be at least 0').max(60_000, 'must be at most 60000').default(0),
  /** Rate limit per API key (api/rateLimit.ts), per API process: sustained requests per second; 0 turns it off. */
  RATE_LIMIT_PER_SECOND: z.coerce.number({ error: 'must be a number' }).min(0, 'must be at least 0').max(100_000, 'must be at most 100000').default(0),
  /** Rate limit: requests a key may send at once before the sustained rate applies. Unset: one second's worth (at least 1). */
  RATE_LIMIT_BURST: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000').optional(),
  /** Rate limit admin keys too (by default they are exempt). */
  RATE_LIMIT_ADMIN: z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  /** Longer episodes are also embedded sentence by sentence (core/ingest/passages.ts): better vector recall, more embedding work per episode. */
  EPISODE_PASSAGES: z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  /** Inactivity after which a working-memory session is archived (per session: `ttl_seconds`). */
  SESSION_TTL: duration.default(3_600_000),
  /** When the nightly dream runs (UTC). */
  DREAM_CRON: cron.default('0 3 * * *'),
  /** Facts whose effective confidence falls below this become stale (left out of reads, kept for history). */
  DECAY_FLOOR: z.coerce.number({ error: 'must be a number' }).min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').default(0.05),
  /** An undecided review item escalates after this long. */
  REVIEW_ESCALATE_AFTER: duration.default(72 * 3_600_000),
  /** Escalated review items are POSTed here (optional). */
  REVIEW_WEBHOOK_URL: optionalString.pipe(z.url({ error: 'must be a URL' }).optional()),
  /** Enables the knowledge-graph browser `/kg`: the secret a person types once to open a session (unset: `/kg` is 404). */
  WEB_APP_BOOTSTRAP_SECRET: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Namespaces the `/kg` page may operate on, comma-separated (unset: every namespace). */
  WEB_APP_NAMESPACES: optionalString.pipe(
    z
      .string()
      .refine(
        (v) => v.split(',').every((s) => s.trim() === '' || /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(s.trim())) && /[^,\s]/.test(v),
        'must be comma-separated namespace names',
      )
      .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
      .optional(),
  ),
  /** How long a `/kg` session lasts after its login. */
  WEB_APP_SESSION_TTL: duration.default(12 * 3_600_000),
  /** Threads: how often an API process reads new messages for its open SSE streams (one shared poller per process). */
  THREAD_POLL_INTERVAL_MS: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(10, 'must be at least 10').max(10_000, 'must be at most 10000').default(250),
  /** Threads: an SSE stream sends a comment line this often, so proxies and clients see it alive. */
  THREAD_HEARTBEAT_MS: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(50, 'must be at least 50').max(300_000, 'must be at most 300000').default(15_000),
  /** Threads: open SSE streams an API process holds at most; one more answers 503 with Retry-After. */
  THREAD_STREAM_MAX: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1').max(100_000, 'must be at most 100000').default(1_000),
  /** Where the `/kg` page links each episode's workflow. */
  TEMPORAL_UI_URL: z.url({ error: 'must be a URL' }).default('http://127.0.0.1:8233').transform((v) => v.replace(/\/+$/, '')),
  /** `GET /metrics` without a key (a scraper on a private network); false: it needs an operator or admin bearer key. */
  METRICS_PUBLIC: z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  /** host:port where a worker serves the Temporal SDK's Prometheus metrics (unset: off). `npm start` also appends them to `/metrics`. */
  WORKER_METRICS_ADDRESS: optionalString.pipe(
    z.string().regex(/^[^\s:/]+:\d+$/, 'must be host:port, e.g. 127.0.0.1:9464').optional(),
  ),
  /**
   * A workflow bundle built ahead by `npm run build:workflows` (unset: the worker bundles the workflow code as it starts,
   * a few seconds of CPU). It must come from the same code as the worker: a stale bundle runs old workflow code.
   */
  WORKFLOW_BUNDLE_PATH: optionalString,
  /** OTLP/HTTP collector (e.g. http://127.0.0.1:4318): traces of requests, workflows and activities are sent there (unset: no tracing). */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.pipe(z.url({ error: 'must be a URL' }).optional()),
  /** `npm run api` applies pending migrations before serving (otherwise run `npm run migrate`). */
  MIGRATE_ON_START: z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  /**
   * `npm run api` serves from this many processes sharing its port (node:cluster; api/cluster/): one Node process
   * serves on one core; on two cores a second raised the writes acknowledged at saturation, not the latency at a
   * given rate (README, "Two API processes").
   * Each process opens its own pools (up to 2.5 x DB_POOL_MAX connections) and its per-process bounds.
   */
  API_PROCESSES: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1').max(64, 'must be at most 64').default(1),
});

export type RawConfig = z.infer<typeof configSchema>;

export interface Config extends RawConfig {
  /** Absolute data folder. */
  dataDir: string;
  /** Embedding model name stored beside every vector. */
  embeddingModel: string;
  /** Absolute folder of the local embedding model. */
  embeddingModelDir: string;
}

/** Shared by every checkout and data folder of this user: the model is built once. */
export const DEFAULT_EMBEDDING_MODEL_DIR = path.join(os.homedir(), '.cache', 'mnemo', 'models', 'all-MiniLM-L6-v2');

/** The local model's variants (see core/embedding/onnxModel.ts); the first is the default. */
export const LOCAL_EMBEDDING_MODELS = ['all-MiniLM-L6-v2-int8', 'all-MiniLM-L6-v2'] as const;
export type LocalEmbeddingModel = (typeof LOCAL_EMBEDDING_MODELS)[number];
/** The feature-hashing embedder's name (EMBEDDING_PROVIDER=hash, and always for entity names). */
export const HASH_EMBEDDING_MODEL = `mnemo-hash-${SCHEMA_EMBEDDING_DIM}-v1`;

const DEFAULT_EMBEDDING_MODELS = { local: LOCAL_EMBEDDING_MODELS[0], hash: HASH_EMBEDDING_MODEL, openai: 'text-embedding-3-small' } as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads an API process serves at once (its read gate): READ_CONCURRENCY, else the read pool's size. */
export function readConcurrency(config: Pick<Config, 'READ_CONCURRENCY' | 'DB_POOL_MAX'>): number {
  return config.READ_CONCURRENCY ?? config.DB_POOL_MAX;
}

/** Parses the environment once; throws ConfigError naming each bad variable and what is allowed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`),
    );
  }
  const raw = result.data;
  if (raw.LLM_PROVIDER === 'openai' && !raw.OPENAI_BASE_URL && !raw.OPENAI_API_KEY) {
    throw new ConfigError(['OPENAI_API_KEY: required when LLM_PROVIDER=openai (or set OPENAI_BASE_URL to a local endpoint)']);
  }
  if (raw.EMBEDDING_PROVIDER === 'local' && raw.EMBEDDING_MODEL && !(LOCAL_EMBEDDING_MODELS as readonly string[]).includes(raw.EMBEDDING_MODEL)) {
    throw new ConfigError([`EMBEDDING_MODEL: with EMBEDDING_PROVIDER=local must be one of: ${LOCAL_EMBEDDING_MODELS.join(', ')}`]);
  }
  return {
    ...raw,
    dataDir: path.resolve(raw.DATA_DIR),
    embeddingModel: raw.EMBEDDING_MODEL ?? DEFAULT_EMBEDDING_MODELS[raw.EMBEDDING_PROVIDER],
    embeddingModelDir: path.resolve(raw.EMBEDDING_MODEL_DIR ?? DEFAULT_EMBEDDING_MODEL_DIR),
  };
}
