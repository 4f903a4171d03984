// Plain ESM: jest loads global setup outside its module mapper, so TypeScript
// sources are imported through tsx.
import { tsImport } from 'tsx/esm/api';
import { TestWorkflowEnvironment } from '@temporalio/testing';

/** Starts one real Temporal dev server for the whole run (tests that stop Temporal start their own). */
export default async function globalSetup() {
  const { findTemporalCli } = await tsImport('../../core/embedded/temporalCli.ts', import.meta.url);
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: findTemporalCli() },
      ip: '127.0.0.1',
      ui: false,
      extraArgs: ['--log-level', 'error'],
    },
  });
  // Test files of this jest process read it from the environment (runInBand shares process.env).
  process.env.MNEMO_TEST_TEMPORAL_ADDRESS = env.connection.options.address;
  globalThis.__MNEMO_TEMPORAL__ = env;
}
