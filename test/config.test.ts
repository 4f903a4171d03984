import path from 'node:path';
import { ConfigError, configSchema, DEFAULT_EMBEDDING_MODEL_DIR, loadConfig, SCHEMA_EMBEDDING_DIM } from '../core/config/config.js';

/** The problems loadConfig reports for `env`, or [] when it parses. */
function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
}

describe('config', () => {
  describe('defaults (empty environment)', () => {
    const config = loadConfig({});
    const defaults: Array<[keyof typeof config, unknown]> = [
      ['DATABASE_URL', undefined],
      ['TEMPORAL_ADDRESS', undefined],
      ['TEMPORAL_NAMESPACE', 'default'],
      ['TEMPORAL_TASK_QUEUE', 'mnemo-extraction'],
      ['TEMPORAL_CLI_PATH', undefined],
      ['TEMPORAL_UI_PORT', 8233],
      ['DATA_DIR', './.mnemo'],
      ['PORT', 8080],
      ['HOST', '127.0.0.1'],
      ['MNEMO_API_KEY', undefined],
      ['LLM_PROVIDER', 'heuristic'],
      ['OPENAI_API_KEY', undefined],
      ['OPENAI_BASE_URL', undefined],
      ['LLM_MODEL', 'gpt-4o-mini'],
      ['LLM_TIMEOUT_MS', 30_000],
      ['EMBEDDING_PROVIDER', 'local'],
      ['EMBEDDING_MODEL', undefined],
      ['EMBEDDING_MODEL_DIR', undefined],
      ['EMBEDDING_DIM', SCHEMA_EMBEDDING_DIM],
      ['LOG_LEVEL', 'info'],
      ['BODY_LIMIT', '1mb'],
      ['MAX_PENDING_EPISODES', 5_000],
      ['READ_CONCURRENCY', undefined],
      ['READ_CONNECTION_IDLE_MS', 600_000],
      ['READ_WARM_CONNECTIONS', 8],
      ['READ_QUEUE_TIMEOUT_MS', 500],
      ['READ_MAX_EVENT_LOOP_LAG_MS', 0],
      ['DB_POOL_MAX', 20],
      ['EXTRACTION_STARTS_PER_SECOND', 100],
      ['EXTRACTION_START_WINDOW', 64],
      ['WORKER_NICE', 10],
      ['EPISODE_PASSAGES', true],
      ['SESSION_TTL', 3_600_000],
      ['DREAM_CRON', '0 3 * * *'],
      ['DECAY_FLOOR', 0.05],
      ['REVIEW_ESCALATE_AFTER', 72 * 3_600_000],
      ['REVIEW_WEBHOOK_URL', undefined],
      ['EXTRACTION_STAGES', undefined],
      ['EXTRACTION_CONCURRENCY', undefined],
      ['WEB_APP_BOOTSTRAP_SECRET', undefined],
      ['WEB_APP_NAMESPACES', undefined],
      ['WEB_APP_SESSION_TTL', 12 * 3_600_000],
      ['TEMPORAL_UI_URL', 'http://127.0.0.1:8233'],
      ['MIGRATE_ON_START', false],
      ['API_PROCESSES', 1],
      ['RATE_LIMIT_PER_SECOND', 0],
      ['RATE_LIMIT_BURST', undefined],
      ['RATE_LIMIT_ADMIN', false],
      ['THREAD_POLL_INTERVAL_MS', 250],
      ['THREAD_HEARTBEAT_MS', 15_000],
      ['THREAD_STREAM_MAX', 1_000],
      ['METRICS_PUBLIC', false],
      ['WORKER_METRICS_ADDRESS', undefined],
      ['WORKFLOW_BUNDLE_PATH', undefined],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', undefined],
    ];

    it.each(defaults)('%s defaults to %p', (name, expected) => {
      expect(config[name]).toEqual(expected);
    });

    it('covers every variable of the schema', () => {
      expect(defaults.map(([name]) => name).sort()).toEqual(Object.keys(configSchema.shape).sort());
    });

    it('derives an absolute data folder and the local embedding model name and folder', () => {
      expect(config.dataDir).toBe(path.resolve('./.mnemo'));
      expect(config.embeddingModel).toBe('all-MiniLM-L6-v2-int8');
      expect(loadConfig({ EMBEDDING_MODEL: 'all-MiniLM-L6-v2' }).embeddingModel).toBe('all-MiniLM-L6-v2');
      expect(config.embeddingModelDir).toBe(DEFAULT_EMBEDDING_MODEL_DIR);
      expect(loadConfig({ EMBEDDING_MODEL_DIR: 'models/minilm' }).embeddingModelDir).toBe(path.resolve('models/minilm'));
      expect(loadConfig({ EMBEDDING_PROVIDER: 'hash' }).embeddingModel).toBe(`mnemo-hash-${SCHEMA_EMBEDDING_DIM}-v1`);
      expect(loadConfig({ EMBEDDING_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test' }).embeddingModel).toBe('text-embedding-3-small');
      expect(loadConfig({ EMBEDDING_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test', EMBEDDING_MODEL: 'my-model' }).embeddingModel).toBe('my-model');
    });

    it('treats empty optional values as unset', () => {
      // docker compose passes `${VAR:-}` as an empty string
      const c = loadConfig({ DATABASE_URL: '', TEMPORAL_ADDRESS: '  ', MNEMO_API_KEY: '', OPENAI_BASE_URL: '', EMBEDDING_MODEL: '' });
      expect(c.DATABASE_URL).toBeUndefined();
      expect(c.TEMPORAL_ADDRESS).toBeUndefined();
      expect(c.MNEMO_API_KEY).toBeUndefined();
      expect(c.OPENAI_BASE_URL).toBeUndefined();
      expect(c.embeddingModel).toBe('all-MiniLM-L6-v2-int8');
    });
  });

  describe('valid values', () => {
    it('parses and coerces what the environment gives as strings', () => {
      const c = loadConfig({
        DATABASE_URL: 'postgres://u:p@db:5432/mnemo',
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_NAMESPACE: 'prod',
        TEMPORAL_TASK_QUEUE: 'q',
        TEMPORAL_CLI_PATH: '/usr/local/bin/temporal',
        TEMPORAL_UI_PORT: '9233',
        DATA_DIR: '/var/lib/mnemo',
        PORT: '3000',
        HOST: '0.0.0.0',
        MNEMO_API_KEY: 'k'.repeat(32),
        LLM_PROVIDER: 'openai',
        OPENAI_BASE_URL: 'http://localhost:11434/v1',
        LLM_MODEL: 'llama3.1',
        LLM_TIMEOUT_MS: '5000',
        EMBEDDING_PROVIDER: 'local',
        LOG_LEVEL: 'debug',
        BODY_LIMIT: '256kb',
        MIGRATE_ON_START: 'true',
      });
      expect(c).toMatchObject({
        PORT: 3000,
        TEMPORAL_UI_PORT: 9233,
        LLM_TIMEOUT_MS: 5000,
        MIGRATE_ON_START: true,
        dataDir: '/var/lib/mnemo',
        LLM_PROVIDER: 'openai',
      });
      expect(loadConfig({ MIGRATE_ON_START: '0' }).MIGRATE_ON_START).toBe(false);
      expect(loadConfig({ EPISODE_PASSAGES: 'false' }).EPISODE_PASSAGES).toBe(false);
    });
  });

  describe('bad values stop start-up with a message naming the variable and what is allowed', () => {
    const cases: Array<[string, string, string]> = [
      ['DATABASE_URL', 'mysql://localhost/db', 'must be a postgres:// or postgresql:// URL'],
      ['TEMPORAL_ADDRESS', 'localhost', 'must be host:port, e.g. localhost:7233'],
      ['TEMPORAL_NAMESPACE', ' ', 'must not be empty'],
      ['TEMPORAL_TASK_QUEUE', '', 'must not be empty'],
      ['TEMPORAL_UI_PORT', 'ui', 'must be a number'],
      ['DATA_DIR', ' ', 'must not be empty'],
      ['PORT', '70000', 'must be between 1 and 65535'],
      ['PORT', '0', 'must be between 1 and 65535'],
      ['PORT', 'http', 'must be a number'],
      ['HOST', '', 'must not be empty'],
      ['MNEMO_API_KEY', 'short', 'must be at least 16 characters'],
      ['LLM_PROVIDER', 'gpt', 'must be one of: heuristic, openai'],
      ['OPENAI_BASE_URL', 'not a url', 'must be a URL'],
      ['LLM_MODEL', ' ', 'must not be empty'],
      ['LLM_TIMEOUT_MS', 'soon', 'must be a number'],
      ['LLM_TIMEOUT_MS', '50', 'must be at least 100'],
      ['EMBEDDING_PROVIDER', 'word2vec', 'must be one of: local, hash, openai'],
      ['EMBEDDING_DIM', '1536', `must be ${SCHEMA_EMBEDDING_DIM} (the width of the vector columns in the migrations)`],
      ['LOG_LEVEL', 'loud', 'must be one of: fatal, error, warn, info, debug, trace, silent'],
      ['BODY_LIMIT', '10 gigs', 'must look like 100kb or 1mb'],
      ['MAX_PENDING_EPISODES', '0', 'must be at least 1'],
      ['READ_CONCURRENCY', 'some', 'must be a number'],
      ['READ_CONCURRENCY', '0', 'must be at least 1'],
      ['READ_CONNECTION_IDLE_MS', '500', 'must be at least 1000'],
      ['READ_WARM_CONNECTIONS', '-1', 'must be at least 0'],
      ['READ_WARM_CONNECTIONS', '201', 'must be at most 200'],
      ['READ_QUEUE_TIMEOUT_MS', '0', 'must be at least 1'],
      ['READ_MAX_EVENT_LOOP_LAG_MS', '-1', 'must be at least 0'],
      ['DB_POOL_MAX', '1', 'must be at least 2'],
      ['DB_POOL_MAX', 'many', 'must be a number'],
      ['EXTRACTION_STARTS_PER_SECOND', '0', 'must be at least 1'],
      ['EXTRACTION_STARTS_PER_SECOND', 'fast', 'must be a number'],
      ['EXTRACTION_START_WINDOW', '-1', 'must be at least 0'],
      ['WORKER_NICE', '20', 'must be at most 19'],
      ['WORKER_NICE', '-21', 'must be at least -20'],
      ['MIGRATE_ON_START', 'yes', 'must be true or false'],
      ['API_PROCESSES', '0', 'must be at least 1'],
      ['API_PROCESSES', '65', 'must be at most 64'],
      ['API_PROCESSES', '1.5', 'must be an integer'],
      ['EPISODE_PASSAGES', 'sometimes', 'must be true or false'],
      ['SESSION_TTL', 'soon', 'must be a duration such as 30s, 15m, 1h or 3d'],
      ['DREAM_CRON', 'daily', 'must be a five-field cron expression such as "0 3 * * *"'],
      ['DECAY_FLOOR', '2', 'must be between 0 and 1'],
      ['REVIEW_ESCALATE_AFTER', '0s', 'must be longer than 0'],
      ['REVIEW_WEBHOOK_URL', 'nope', 'must be a URL'],
      ['EXTRACTION_STAGES', 'both', 'must be one of: activities, local'],
      ['EXTRACTION_CONCURRENCY', '0', 'must be at least 1'],
      ['EXTRACTION_CONCURRENCY', 'lots', 'must be a number'],
      ['EXTRACTION_CONCURRENCY', '501', 'must be at most 500'],
      ['WEB_APP_BOOTSTRAP_SECRET', 'short', 'must be at least 16 characters'],
      ['WEB_APP_NAMESPACES', 'a,bad name', 'must be comma-separated namespace names'],
      ['WEB_APP_SESSION_TTL', 'soon', 'must be a duration such as 30s, 15m, 1h or 3d'],
      ['TEMPORAL_UI_URL', 'nope', 'must be a URL'],
      ['RATE_LIMIT_PER_SECOND', 'lots', 'must be a number'],
      ['RATE_LIMIT_PER_SECOND', '-1', 'must be at least 0'],
      ['RATE_LIMIT_BURST', '0', 'must be at least 1'],
      ['RATE_LIMIT_BURST', '2.5', 'must be an integer'],
      ['RATE_LIMIT_ADMIN', 'maybe', 'must be true or false'],
      ['THREAD_POLL_INTERVAL_MS', '5', 'must be at least 10'],
      ['THREAD_POLL_INTERVAL_MS', 'often', 'must be a number'],
      ['THREAD_HEARTBEAT_MS', '600000', 'must be at most 300000'],
      ['THREAD_STREAM_MAX', '0', 'must be at least 1'],
      ['METRICS_PUBLIC', 'open', 'must be true or false'],
      ['WORKER_METRICS_ADDRESS', ':9464', 'must be host:port, e.g. 127.0.0.1:9464'],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector', 'must be a URL'],
    ];

    it.each(cases)('%s=%p → "%s"', (name, value, message) => {
      expect(problems({ [name]: value })).toEqual([`${name}: ${message}`]);
    });

    it('every variable that can be invalid has a case', () => {
      const free = new Set(['TEMPORAL_CLI_PATH', 'OPENAI_API_KEY', 'EMBEDDING_MODEL', 'EMBEDDING_MODEL_DIR', 'WORKFLOW_BUNDLE_PATH']); // any string is allowed
      const covered = new Set(cases.map(([name]) => name));
      const uncovered = Object.keys(configSchema.shape).filter((name) => !covered.has(name) && !free.has(name));
      expect(uncovered).toEqual([]);
    });

    it('reports every bad variable at once, in a message fit for a terminal', () => {
      let error: unknown;
      try {
        loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(
        'Invalid configuration:\n  - PORT: must be a number\n  - LOG_LEVEL: must be one of: fatal, error, warn, info, debug, trace, silent',
      );
    });

    it('requires OPENAI_API_KEY (or a local OPENAI_BASE_URL) for LLM_PROVIDER=openai', () => {
      expect(problems({ LLM_PROVIDER: 'openai' })).toEqual([
        'OPENAI_API_KEY: required when LLM_PROVIDER=openai (or set OPENAI_BASE_URL to a local endpoint)',
      ]);
      expect(problems({ LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-x' })).toEqual([]);
      expect(problems({ LLM_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://localhost:11434/v1' })).toEqual([]);
    });

    it('accepts only the local model variants for EMBEDDING_PROVIDER=local', () => {
      expect(problems({ EMBEDDING_MODEL: 'my-model' })).toEqual(['EMBEDDING_MODEL: with EMBEDDING_PROVIDER=local must be one of: all-MiniLM-L6-v2-int8, all-MiniLM-L6-v2']);
      expect(problems({ EMBEDDING_MODEL: 'all-MiniLM-L6-v2' })).toEqual([]);
    });
  });
});
