import { spawn, type ChildProcess } from 'node:child_process';
import type { Config } from '../../core/config/config.js';
import { entryArgs } from './compiledSources.js';
import { ROOT } from './paths.js';

/** A service entry point (`workers/main.ts`, `api/main.ts`) in a process of its own, on a test stack's database, Temporal and task queue. */
export function spawnServiceProcess(
  entry: string,
  config: Config,
  env: Record<string, string> = {},
  stdio: 'ignore' | ['ignore', 'ignore', 'inherit'] = 'ignore',
): ChildProcess {
  return spawn(process.execPath, entryArgs(entry), {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      DATABASE_URL: config.DATABASE_URL,
      TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio,
  });
}

/**
 * `npm run worker` in a process of its own: a worker that can be SIGKILLed like a crashed host,
 * or that runs beside the API at its own CPU priority (WORKER_NICE).
 */
export function spawnWorkerProcess(config: Config, env: Record<string, string> = {}): ChildProcess {
  return spawnServiceProcess('workers/main.ts', config, env);
}

/** Stops a spawned process (SIGTERM unless another signal is given) and waits for it to exit. */
export async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
