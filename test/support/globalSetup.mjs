// Plain ESM: jest loads global setup outside its module mapper, so TypeScript
// sources are imported through tsx.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { TestWorkflowEnvironment } from '@temporalio/testing';

// The SDK gives the dev server a fixed 5 s to accept connections and kills it
// otherwise. On a cold or busy machine the first start can take longer, so the
// binary is paged in first, the start is retried with a fresh port, and as a
// last resort the server is started by the embedded launcher (60 s deadline).
const START_ATTEMPTS = 3;

async function startTemporal(cliPath) {
  execFileSync(cliPath, ['--version'], { stdio: 'ignore', timeout: 60_000 });
  let lastError;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      return await TestWorkflowEnvironment.createLocal({
        server: {
          executable: { type: 'existing-path', path: cliPath },
          ip: '127.0.0.1',
          ui: false,
          extraArgs: ['--log-level', 'error'],
        },
      });
    } catch (error) {
      lastError = error;
      console.warn(`[globalSetup] Temporal dev server start ${attempt}/${START_ATTEMPTS} failed: ${error.message}`);
    }
  }
  return startWithEmbeddedLauncher(cliPath, lastError);
}

async function startWithEmbeddedLauncher(cliPath, sdkError) {
  const { startTemporalDevServer } = await tsImport('../../core/embedded/temporalServer.ts', import.meta.url);
  const { freePort } = await tsImport('../../core/embedded/ports.ts', import.meta.url);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-test-temporal-'));
  const server = await startTemporalDevServer({ cli: cliPath, dir, namespace: 'default', port: await freePort(), uiPort: await freePort() }).catch((error) => {
    throw new Error(`Temporal dev server did not start (SDK: ${sdkError?.message}; embedded launcher: ${error.message})`);
  });
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address: server.address });
  return {
    connection: env.connection,
    async teardown() {
      await env.teardown();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts one real Temporal dev server for the whole run (tests that stop Temporal start their own). */
export default async function globalSetup() {
  const { findTemporalCli } = await tsImport('../../core/embedded/temporalCli.ts', import.meta.url);
  const env = await startTemporal(findTemporalCli());
  // Test files of this jest process read it from the environment (runInBand shares process.env).
  process.env.MNEMO_TEST_TEMPORAL_ADDRESS = env.connection.options.address;
  globalThis.__MNEMO_TEMPORAL__ = env;
}
