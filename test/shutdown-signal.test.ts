import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPEATED_SIGNAL_GRACE_MS } from '../core/embedded/lifecycle.js';
import { entryArgs } from './support/compiledSources.js';
import { ROOT } from './support/paths.js';

/** Starts the fixture process; resolves once it is ready, with its output and exit code to come. */
async function startProcess(shutdownMs: number) {
  const child = spawn(process.execPath, [...entryArgs('test/fixtures/process/shutdownOnSignal.ts'), String(shutdownMs)], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (let waited = 0; !output.includes('ready'); waited += 50) {
    if (waited > 20_000 || child.exitCode !== null) throw new Error(`fixture did not start:\n${output}`);
    await sleep(50);
  }
  return { child, exit, output: () => output };
}

describe('shutdown on a signal', () => {
  it('Ctrl-C under npm (the signal delivered twice within milliseconds) still shuts down cleanly', async () => {
    // The terminal signals the whole process group, and npm forwards the SIGINT it got as well.
    const proc = await startProcess(500);
    proc.child.kill('SIGINT');
    await sleep(5);
    proc.child.kill('SIGINT');
    await expect(proc.exit).resolves.toBe(0);
    expect(proc.output()).toContain('clean shutdown done');
    expect(proc.output()).not.toContain('second signal');
  }, 30_000);

  it('a second signal well after the first stops at once, without waiting for the shutdown', async () => {
    const proc = await startProcess(20_000);
    proc.child.kill('SIGINT');
    await sleep(REPEATED_SIGNAL_GRACE_MS + 500);
    const sent = performance.now();
    proc.child.kill('SIGTERM');
    await expect(proc.exit).resolves.toBe(1);
    expect(performance.now() - sent).toBeLessThan(5_000);
    expect(proc.output()).toContain('second signal');
    expect(proc.output()).not.toContain('clean shutdown done');
  }, 30_000);
});
