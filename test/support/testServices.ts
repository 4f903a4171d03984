import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { loadConfig } from '../../core/config/config.js';
import { embeddingModelMissing, ensureEmbeddingModel } from '../../core/embedded/embeddingModel.js';
import { freePort } from '../../core/embedded/ports.js';
import { startEphemeralPostgres, type EmbeddedPostgres } from '../../core/embedded/postgres.js';
import { ensureTemporalCli, ensureTemporalTestServer, findTemporalCli, findTemporalTestServer } from '../../core/embedded/temporalCli.js';
import { startTemporalDevServer } from '../../core/embedded/temporalServer.js';
import { writeWorkflowBundle } from '../../workers/runtime.js';
import { compileSources, COMPILED_SOURCES_ENV } from './compiledSources.js';
import { prepareMigratedTemplate } from './db.js';

/**
 * What a jest run needs before any test file: the embedding model, the
 * Temporal binaries, one Temporal dev server for the whole run and (on the
 * embedded default) a PGlite for tests that need "some PostgreSQL". Found or
 * set up by the same code as `npm start`, so `npm test` needs nothing prepared.
 * Test files read the results from process.env (runInBand shares it; workers inherit it),
 * as does every worker a test starts: WORKFLOW_BUNDLE_PATH, the run's one workflow bundle.
 */

const log = (msg: string) => console.log(`[mnemo test] ${msg}`);

interface Temporal {
  address: string;
  teardown(): Promise<void>;
}

// The SDK gives the dev server a fixed 5 s to accept connections and kills it
// otherwise. On a cold or busy machine the first start can take longer, so the
// binary is paged in first, the start is retried with a fresh port, and as a
// last resort the server is started by the embedded launcher (60 s deadline).
const START_ATTEMPTS = 3;

/**
 * The server spaces the runs of one workflow id at least 1 s apart (a guard against a continue-as-new loop in
 * production, where runs last a hundred batches or more). Tests shrink runs to a few batches to cross many
 * continue-as-new boundaries, and paid that second per run: 9-10 s of an erasure test, as much again in the dream's.
 */
const TEST_DYNAMIC_CONFIG = ['--dynamic-config-value', 'history.workflowIdReuseMinimalInterval="0s"'];

async function startTemporal(cliPath: string): Promise<Temporal> {
  execFileSync(cliPath, ['--version'], { stdio: 'ignore', timeout: 60_000 });
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      const env = await TestWorkflowEnvironment.createLocal({
        server: { executable: { type: 'existing-path', path: cliPath }, ip: '127.0.0.1', ui: false, extraArgs: ['--log-level', 'error', ...TEST_DYNAMIC_CONFIG] },
      });
      return { address: env.connection.options.address, teardown: () => env.teardown() };
    } catch (error) {
      lastError = error as Error;
      console.warn(`[mnemo test] Temporal dev server start ${attempt}/${START_ATTEMPTS} failed: ${lastError.message}`);
    }
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-test-temporal-'));
  const server = await startTemporalDevServer({ cli: cliPath, dir, namespace: 'default', port: await freePort(), uiPort: await freePort() }).catch(
    (error: Error) => {
      throw new Error(`Temporal dev server did not start (SDK: ${lastError?.message}; embedded launcher: ${error.message})`);
    },
  );
  return {
    address: server.address,
    async teardown() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `step` and, when `missing` said it had to set something up, notes how long that took. */
async function timed<T>(what: string, missing: boolean, step: () => Promise<T> | T, notes: string[]): Promise<T> {
  const started = performance.now();
  const result = await step();
  if (missing) notes.push(`${what} ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return result;
}

function isMissing(find: () => unknown): boolean {
  try {
    find();
    return false;
  } catch {
    return true;
  }
}

export interface TestServices {
  teardown(): Promise<void>;
}

export async function setUpTestServices(): Promise<TestServices> {
  const embedded = !process.env.TEST_DATABASE_ADMIN_URL;
  const externalTemporal = process.env.TEST_TEMPORAL_ADDRESS;
  const notes: string[] = [];

  // Only what is missing is set up; the first run says what and how long it took.
  const modelConfig = loadConfig({ ...process.env, DATABASE_URL: undefined, TEMPORAL_ADDRESS: undefined });
  const modelMissing = embeddingModelMissing(modelConfig);
  if (modelMissing) log(`first run: building the local embedding model into ${modelConfig.embeddingModelDir} (once)`);
  await timed('embedding model', modelMissing, () => ensureEmbeddingModel(modelConfig), notes);
  const cliMissing = !externalTemporal && isMissing(() => findTemporalCli());
  const cli = externalTemporal ? undefined : await timed('temporal CLI', cliMissing, () => ensureTemporalCli(undefined, log), notes);
  const testServerMissing = isMissing(() => findTemporalTestServer());
  const testServer = await timed('time-skipping test server', testServerMissing, () => ensureTemporalTestServer(undefined, log), notes);
  if (notes.length) log(`set up ${notes.join(', ')}; later runs reuse them`);

  // Every test stack and spawned worker of the run loads this one bundle instead of bundling the workflow code again
  // (6 s of CPU each, 50-odd times a run). `npm test` runs Jest twice on the same sources and hands both runs one
  // folder (MNEMO_TEST_SHARED_DIR), where the second finds the bundle and the migrated PGlite the first made.
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-test-run-'));
  const sharedDir = process.env.MNEMO_TEST_SHARED_DIR || runDir;
  const bundlePath = path.join(sharedDir, 'workflow-bundle.js');
  // And every test database starts as a copy of one migrated here (see createTestDatabase).
  // On the embedded default the PGlite for tests that need "some PostgreSQL" starts as a copy of that one too: from
  // initdb it cost about 2 s of CPU more, in each of the two Jest runs of `npm test`.
  const templateReady = prepareMigratedTemplate(sharedDir);
  const [temporal, adminPostgres, template] = await Promise.all([
    cli ? startTemporal(cli) : Promise.resolve<Temporal>({ address: externalTemporal ?? '', teardown: async () => undefined }),
    embedded ? templateReady.then(({ location }) => startEphemeralPostgres({ loadDataDir: location })) : Promise.resolve<EmbeddedPostgres | undefined>(undefined),
    templateReady,
    existsSync(bundlePath) ? Promise.resolve() : writeWorkflowBundle(bundlePath),
  ]);
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
  // Spawned services run compiled (see compiledSources.ts); both passes of `npm test` share one compilation.
  process.env[COMPILED_SOURCES_ENV] = compileSources(sharedDir);
  process.env.MNEMO_TEST_TEMPORAL_ADDRESS = temporal.address;
  if (cli) process.env.MNEMO_TEST_TEMPORAL_CLI = cli;
  process.env.MNEMO_TEST_TEMPORAL_TEST_SERVER = testServer;
  if (adminPostgres) process.env.MNEMO_TEST_EMBEDDED_ADMIN_URL = adminPostgres.url;
  log(
    embedded
      ? 'PostgreSQL: embedded PGlite, one instance per test database (set TEST_DATABASE_ADMIN_URL to test against a server)'
      : `PostgreSQL: server at ${new URL(process.env.TEST_DATABASE_ADMIN_URL ?? '').host}`,
  );
  return {
    async teardown() {
      await Promise.allSettled([temporal.teardown(), adminPostgres?.stop(), template.remove()]);
      rmSync(runDir, { recursive: true, force: true });
    },
  };
}
