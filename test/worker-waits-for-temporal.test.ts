import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, portForLater } from '../core/embedded/ports.js';
import { startTemporalDevServer, type TemporalDevServer } from '../core/embedded/temporalServer.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';

/**
 * A worker restarted while Temporal is down (the chaos run kills the worker, then stops Temporal while it is
 * still starting) waits for Temporal and comes up with it, instead of exiting at its first failed call.
 */
describe('a worker started before its Temporal answers', () => {
  let stack: TestStack | undefined;
  let temporal: TemporalDevServer | undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-late-temporal-'));

  afterAll(async () => {
    await stack?.stop();
    await temporal?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits for it, then extracts', async () => {
    const cli = process.env.MNEMO_TEST_TEMPORAL_CLI;
    if (!cli) throw new Error('MNEMO_TEST_TEMPORAL_CLI is unset: the global setup finds the temporal CLI');
    // Nothing listens on the port yet, and no outgoing connection takes it before Temporal binds it 12 s on.
    const port = await portForLater();
    stack = await startTestStack({ temporalAddress: `127.0.0.1:${port}`, withWorker: false });
    const starting = stack.startWorker();
    let started = false;
    void starting.then(() => (started = true), () => undefined);
    // Longer than one call's 10 s deadline: a worker that gave up at its first failed call would be gone by now.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    expect(started).toBe(false);

    temporal = await startTemporalDevServer({ cli, dir, namespace: 'default', port, uiPort: await freePort() });
    expect(temporal.address).toBe(`127.0.0.1:${port}`);
    await starting;
    const episode = await remember(stack, { namespace: 'late-temporal', content: 'Ana moved to Lisbon in 2024.' });
    expect(episode.status).toBe('extracted');
  }, 90_000);
});
