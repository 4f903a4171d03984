// Plain ESM: jest loads global setup outside its module mapper, so TypeScript
// sources are imported through tsx.
import { execFileSync } from 'node:child_process';
import { tsImport } from 'tsx/esm/api';
import { TestWorkflowEnvironment } from '@temporalio/testing';

// The SDK gives the dev server a fixed 5 s to accept connections and kills it
// otherwise. On a cold or busy machine the first start can take longer, so the
// binary is paged in first and the start is retried with a fresh port.
const START_ATTEMPTS = 4;

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
  throw lastError;
}

/** Starts one real Temporal dev server for the whole run (tests that stop Temporal start their own). */
export default async function globalSetup() {
  const { findTemporalCli } = await tsImport('../../core/embedded/temporalCli.ts', import.meta.url);
  const env = await startTemporal(findTemporalCli());
  // Test files of this jest process read it from the environment (runInBand shares process.env).
  process.env.MNEMO_TEST_TEMPORAL_ADDRESS = env.connection.options.address;
  globalThis.__MNEMO_TEMPORAL__ = env;
}
