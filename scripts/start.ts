// `npm start`: the all-in-one default. Embedded PGlite and a Temporal dev server
// (unless DATABASE_URL / TEMPORAL_ADDRESS point elsewhere), migrations, the
// admin key, the API in this process and a worker in a process of its own
// (core/embedded/workerProcess.ts says why). Ctrl-C stops it all.
import { createServer, type Server } from 'node:http';
import type { BuiltDeps } from '../core/buildDeps.js';
import { ConfigError, loadConfig, type Config } from '../core/config/config.js';
import { closeServer, describeStartupFailure, listen, onShutdownSignal } from '../core/embedded/lifecycle.js';
import { startEmbeddedServices, type EmbeddedServices } from '../core/embedded/stack.js';
import { ensureEmbeddingModel } from '../core/embedded/embeddingModel.js';
import { forkWorker, type WorkerSupervisor } from '../core/embedded/workerProcess.js';
import { createLogger } from '../core/logger.js';

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}
const logger = createLogger(config);
// Seconds per start-up phase, printed with the banner (loading the modules is the first one).
const phases: string[] = [`modules ${process.uptime().toFixed(1)}`];
let phaseStart = performance.now();
function phase<T>(name: string, value: T): T {
  phases.push(`${name} ${((performance.now() - phaseStart) / 1000).toFixed(1)}`);
  phaseStart = performance.now();
  return value;
}

let services: EmbeddedServices | undefined;
let deps: BuiltDeps | undefined;
let worker: WorkerSupervisor | undefined;
let server: Server | undefined;

/** Stops in reverse order of start: API, worker, clients, then Temporal and PGlite (which flushes its files). Runs once. */
let stopping: Promise<void> | undefined;
function stopAll(): Promise<void> {
  stopping ??= (async () => {
    const steps: Array<[string, () => Promise<void>]> = [
      ['api', async () => server && (await closeServer(server))],
      ['worker', async () => worker && (await worker.stop())],
      ['clients', async () => deps && (await deps.close())],
      ['embedded services', async () => services && (await services.stop())],
    ];
    let failure: unknown;
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (err) {
        logger.error({ err }, `stopping ${name} failed`);
        failure ??= err;
      }
    }
    if (failure) throw failure;
  })();
  return stopping;
}

async function startAll(): Promise<void> {
  // The all-in-one start needs nothing prepared: the first start builds the local embedding model.
  ensureEmbeddingModel(config);
  // PGlite is one session in this process: its API serves from this process alone.
  if (config.API_PROCESSES > 1) logger.warn({ API_PROCESSES: config.API_PROCESSES }, 'API_PROCESSES applies to `npm run api`; npm start serves from one process');
  // Start the services and the worker's process first (it loads its modules and bundles the workflow
  // code meanwhile), then load the API's (large) module graph while the Temporal dev server boots.
  const servicesStarting = startEmbeddedServices(config, logger);
  servicesStarting.catch(() => undefined); // awaited below
  worker = forkWorker({ logger });
  const [{ createApp }, { warmUpReadPath }, { warmUpReadConnections }, { ensureAdminKey }, { buildDeps }, { migrate }] = await Promise.all([
    import('../api/app.js'),
    import('../api/warmUp.js'),
    import('../api/warmUpConnections.js'),
    import('../core/auth/bootstrap.js'),
    import('../core/buildDeps.js'),
    import('../core/db/migrate.js'),
  ]);
  services = phase('services', await servicesStarting);
  const resolved = services.config;
  const migrated = phase('migrations', await migrate(resolved.DATABASE_URL));
  if (migrated.applied.length) logger.info({ applied: migrated.applied }, 'migrations applied');
  const admin = ensureAdminKey(resolved);
  const runtimeConfig: Config = { ...resolved, MNEMO_API_KEY: admin.key };
  const built = buildDeps(runtimeConfig, { logger });
  deps = built;
  // The query embedder's model loads and the read connections warm while the worker starts (api/warmUp*.ts).
  const warming = warmUpReadPath(built.embedder, logger).then(() => warmUpReadConnections(built, logger));
  // Before the API listens: the worker registers the search attributes that the API's workflow starts set.
  phase('worker', await worker.start({ DATABASE_URL: resolved.DATABASE_URL, TEMPORAL_ADDRESS: resolved.TEMPORAL_ADDRESS }));
  await warming;
  // The worker's Temporal SDK metrics (WORKER_METRICS_ADDRESS, served by its process) are appended to the API's /metrics.
  const workerMetricsUrl = runtimeConfig.WORKER_METRICS_ADDRESS ? `http://${runtimeConfig.WORKER_METRICS_ADDRESS}/metrics` : undefined;
  server = createServer(createApp(deps, { metrics: { workerMetricsUrl } }));
  phase('api', await listen(server, runtimeConfig.PORT, runtimeConfig.HOST));

  const apiUrl = `http://${runtimeConfig.HOST}:${runtimeConfig.PORT}`;
  const keyNote = admin.source === 'env' ? '(from MNEMO_API_KEY)' : `(stored in ${admin.file})`;
  const lines = [
    '',
    `Mnemo is running (started in ${process.uptime().toFixed(1)} s: ${phases.join(', ')})`,
    `  API:          ${apiUrl}`,
    `  API key:      ${admin.key}  ${keyNote}`,
    `  Temporal UI:  ${services.temporal ? services.temporal.uiUrl : `(external Temporal at ${resolved.TEMPORAL_ADDRESS})`}`,
    `  Temporal:     ${resolved.TEMPORAL_ADDRESS}`,
    `  Worker:       pid ${worker.pid} (CPU priority nice ${runtimeConfig.WORKER_NICE}; restarted if it stops)`,
    `  Postgres:     ${services.postgres ? `${services.postgres.url}  (embedded PGlite, data in ${runtimeConfig.dataDir})` : '(DATABASE_URL)'}`,
    '',
    `Try: curl -s -X POST ${apiUrl}/v1/memories -H "Authorization: Bearer ${admin.key}" \\`,
    `       -H 'content-type: application/json' -d '{"content":"Alice moved to Berlin","user_id":"alice"}'`,
    'Press Ctrl-C to stop.',
    '',
  ];
  console.log(lines.join('\n'));
}

const startup = startAll();
// A signal during start-up lets it finish (or fail) first, so nothing it started is left running.
onShutdownSignal(logger, async () => {
  await startup.catch(() => undefined);
  await stopAll();
  logger.info('stopped cleanly');
});

try {
  await startup;
} catch (err) {
  logger.fatal({ err }, 'start-up failed');
  console.error(`\nMnemo could not start: ${describeStartupFailure(err)}`);
  await stopAll().catch(() => undefined);
  process.exit(1);
}
