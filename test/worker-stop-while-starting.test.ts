import { spawn } from 'node:child_process';
import { freePort } from '../core/embedded/ports.js';
import type { WorkerStartMessage } from '../core/embedded/workerProtocol.js';
import { entryArgs } from './support/compiledSources.js';
import { ROOT } from './support/paths.js';
import { stopProcess } from './support/workerProcess.js';

/**
 * Ctrl-C on `npm start` while its worker process is still starting (just
 * restarted, still bundling its workflows or waiting for Temporal) stops that
 * worker at once: nothing is polled or running yet, so there is nothing to
 * drain. It used to wait for the start to finish, and npm start waited for it
 * until it killed the worker 30 s later.
 */
describe("npm start's worker process stopped while it starts", () => {
  it('exits within seconds of SIGTERM instead of finishing its start first', async () => {
    // Nothing listens on either: the worker waits for this Temporal (up to two minutes) before it could poll, and
    // touches no database before that.
    const [temporalPort, databasePort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, entryArgs('workers/child.ts'), {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      const start: WorkerStartMessage = {
        type: 'start',
        DATABASE_URL: `postgresql://postgres@127.0.0.1:${databasePort}/postgres`,
        TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      };
      child.send(start);
      // Long enough to have loaded its modules and be inside its start, waiting for Temporal.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(child.exitCode).toBeNull();

      const signalled = performance.now();
      child.kill('SIGTERM');
      const deadline = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 10_000).unref());
      const outcome = await Promise.race([exited, deadline]);
      expect(outcome).toEqual({ code: 0, signal: null });
      expect(performance.now() - signalled).toBeLessThan(10_000);
    } finally {
      await stopProcess(child, 'SIGKILL');
    }
  }, 40_000);
});
