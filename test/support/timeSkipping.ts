import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ensureTemporalTestServer } from '../../core/embedded/temporalCli.js';

/**
 * Temporal's time-skipping test server, for tests whose workflows wait on
 * timers (TTL, escalation, schedules of bursts): `env.sleep('72h')` moves the
 * server's clock, and awaiting a result through `env.client` skips ahead.
 * Workers connect with `env.nativeConnection`; activities that need a client
 * get one through `createTemporalHandle(config, timeSkippingAddress(env))`.
 */
export async function startTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  // globalSetup found or installed it (into the private venv, never an internet download).
  const path = process.env.MNEMO_TEST_TEMPORAL_TEST_SERVER ?? (await ensureTemporalTestServer());
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path } },
  });
}

/** host:port of the time-skipping server. */
export function timeSkippingAddress(env: TestWorkflowEnvironment): string {
  return env.connection.options.address;
}
