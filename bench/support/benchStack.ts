// Starts what a benchmark needs: a fresh database on a real PostgreSQL with
// pgvector (DATABASE_URL's server), a Temporal dev server, and API / worker
// processes exactly as production runs them (`api/main.ts`, `workers/main.ts`).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../core/config/config.js';
import { startEmbeddedServices, type EmbeddedServices } from '../../core/embedded/stack.js';
import { freePort } from '../../core/embedded/ports.js';
import { createLogger } from '../../core/logger.js';
import { DEFAULT_BENCH_DATABASE_URL, ensureBenchDatabase, siblingDatabaseUrl } from '../lib/db.js';
import { readHostTicks, stealShare } from '../lib/cpuSteal.js';
import { measureMachineSpeed, type MachineSpeed } from '../lib/machineSpeed.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BENCH_KEY = 'bench-admin-key-0123456789abcdef';

/** `--name value` and `--flag` arguments. */
export function parseArgs(argv = process.argv.slice(2)): Map<string, string> {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const [key, inline] = a.slice(2).split('=', 2);
    if (inline !== undefined) args.set(key, inline);
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) args.set(key, argv[++i]);
    else args.set(key, 'true');
  }
  return args;
}

/** Drops and re-creates `<name>` on DATABASE_URL's server, then migrates it. */
export async function freshBenchDatabase(name: string): Promise<string> {
  const url = siblingDatabaseUrl(process.env.DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL, name);
  await ensureBenchDatabase(url, true);
  return url;
}

export interface BenchStack {
  databaseUrl: string;
  temporalAddress: string;
  apiUrl: string;
  env: Record<string, string>;
  startWorkers(count: number, extraEnv?: Record<string, string>): Promise<ChildProcess[]>;
  /** Process ids of what runs, for CPU readings from /proc (bench/lib/procCpu.ts). */
  pids(): { api: number; workers: number[]; temporal: number | null };
  stop(): Promise<void>;
}

function spawnService(entry: string, env: Record<string, string>, logFile: string): ChildProcess {
  // BENCH_SERVICE_NODE_ARGS reaches only the services, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile them under load.
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const errors: string[] = [];
  child.stderr?.on('data', (d: Buffer) => errors.push(d.toString()));
  child.on('exit', () => writeFileSync(logFile, errors.join('')));
  return child;
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** The API alone in its own process (`api/main.ts`, as `npm run api` runs it), so a load generator in this process does not share its event loop. */
export async function startApiProcess(env: Record<string, string>): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const logDir = path.join(ROOT, 'bench/results/logs');
  mkdirSync(logDir, { recursive: true });
  const child = spawnService('api/main.ts', { LOG_LEVEL: 'warn', ...env, PORT: String(port) }, path.join(logDir, 'api.log'));
  process.once('exit', () => child.exitCode === null && child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, 60_000);
  return { url, pid: child.pid ?? -1, stop: () => stopChild(child) };
}

export async function startBenchStack(options: { database: string; env?: Record<string, string>; workers?: number }): Promise<BenchStack> {
  const databaseUrl = await freshBenchDatabase(options.database);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-bench-'));
  const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn', TEMPORAL_UI_PORT: String(await freePort()) });
  const services: EmbeddedServices = await startEmbeddedServices(config, createLogger(config));
  const logDir = path.join(ROOT, 'bench/results/logs');
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: services.config.TEMPORAL_ADDRESS,
    MNEMO_API_KEY: BENCH_KEY,
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  const api = await startApiProcess(env);
  const apiUrl = api.url;
  const workers: ChildProcess[] = [];
  // If the benchmark dies, do not leave worker processes behind.
  process.once('exit', () => workers.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));
  const stack: BenchStack = {
    databaseUrl,
    temporalAddress: services.config.TEMPORAL_ADDRESS,
    apiUrl,
    env,
    async startWorkers(count, extraEnv = {}) {
      const started = Array.from({ length: count }, (_, i) =>
        spawnService('workers/main.ts', { ...env, ...extraEnv }, path.join(logDir, `worker-${workers.length + 1 + i}.log`)),
      );
      workers.push(...started);
      return started;
    },
    pids: () => ({
      api: api.pid,
      workers: workers.filter((c) => c.exitCode === null && c.pid !== undefined).map((c) => c.pid as number),
      temporal: services.temporal?.pid ?? null,
    }),
    async stop() {
      await Promise.all([api.stop(), ...workers.map(stopChild)]);
      await services.stop();
    },
  };
  if (options.workers) await stack.startWorkers(options.workers);
  await waitFor(`${apiUrl}/readyz`, 60_000);
  return stack;
}

/** This run's reading of the machine's speed: taken once, so every file a benchmark writes carries the same one. */
let machineSpeed: (MachineSpeed & { cpu_steal_share: number | null }) | undefined;

/** The host's CPU ticks when the benchmark started, for the steal over its whole run. */
const ticksAtStart = readHostTicks();

/**
 * Writes bench/results/<name>.json, with `machine_speed` added to an object
 * result: how fast this machine's CPU was, read when the benchmark finished
 * (its services idle), so figures from different machines can be compared,
 * and `cpu_steal_share`: the share of the host's CPU time the hypervisor gave
 * to other guests from the benchmark's start until then.
 */
export function writeResult(name: string, result: unknown): string {
  const dir = path.join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  const isObject = typeof result === 'object' && result !== null && !Array.isArray(result);
  const written = isObject ? { ...result, machine_speed: (machineSpeed ??= { ...measureMachineSpeed(), cpu_steal_share: stealShare(ticksAtStart, readHostTicks()) }) } : result;
  writeFileSync(file, `${JSON.stringify(written, null, 2)}\n`);
  return file;
}
