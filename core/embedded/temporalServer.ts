import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { preferredOrFreePort } from './ports.js';
import { isAlive, readPid } from './processLock.js';
import { setSessionGroupNice } from './cpuPriority.js';
import { StartupError } from './errors.js';

export interface TemporalDevServer {
  /** host:port of the gRPC frontend. */
  address: string;
  uiUrl: string;
  pid: number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface TemporalDevServerOptions {
  cli: string;
  /** Holds temporal.db (workflow histories survive restarts) and the server's pid file. */
  dir: string;
  namespace: string;
  host?: string;
  /** gRPC port; taken when free, else any free port. */
  port?: number;
  uiPort: number;
  readyTimeoutMs?: number;
  /** Receives the server's stderr lines (its warnings and errors). */
  onLog?: (line: string) => void;
  /**
   * CPU priority of the server's session group (cpuPriority.ts). Under `npm start` it serves only the
   * worker's extractions (acknowledgements start workflows in the background), so it yields to the API
   * like the worker does.
   */
  nice?: number;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A dev server from an earlier run that died without stopping it would hold the SQLite file: stop it. */
async function stopLeftover(pidFile: string): Promise<void> {
  const pid = readPid(pidFile);
  if (pid === null || !isAlive(pid)) return;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // not Linux, or gone already
  }
  if (cmdline && !cmdline.includes('start-dev')) return; // the pid was reused by something else
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

/** Polls until the frontend answers and the namespace exists. */
async function waitUntilServing(address: string, namespace: string, child: ChildProcess, timeoutMs: number, stderr: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new StartupError(`Temporal dev server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${stderr()}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.withDeadline(Date.now() + 2_000, () => connection.workflowService.describeNamespace({ namespace }));
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = (err as Error).message;
    }
    await sleep(150);
  }
  throw new StartupError(`Temporal dev server at ${address} did not answer within ${timeoutMs} ms (${lastError})\n${stderr()}`);
}

/** `temporal server start-dev` with its database file under `dir`, bound to loopback. */
export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const host = options.host ?? '127.0.0.1';
  mkdirSync(options.dir, { recursive: true });
  const pidFile = path.join(options.dir, 'server.pid');
  await stopLeftover(pidFile);
  const port = await preferredOrFreePort(options.port ?? 7233, host);
  const uiPort = await preferredOrFreePort(options.uiPort, host);
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    path.join(options.dir, 'temporal.db'),
    '--ip',
    host,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--log-level',
    'error',
    // WAL with synchronous=NORMAL: no fsync per Temporal transaction, still crash-safe for the
    // process (an OS crash may lose the last moments; reconcile restarts what they held).
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
  ];
  if (options.namespace !== 'default') args.push('--namespace', options.namespace);
  // Its own process group: a terminal's Ctrl-C reaches only Mnemo, which then stops
  // the server after the worker (a leftover from a crash is stopped by the next start).
  const child = spawn(options.cli, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  spawnError.catch(() => undefined); // observed below; a late error must not be unhandled
  // The start of its stderr says why it stopped (a Go panic's message comes before its stack); the end, what it did last.
  let head = '';
  let tail = '';
  let dropped = false;
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    const rest = chunk.slice(Math.max(0, 2_000 - head.length));
    head += chunk.slice(0, chunk.length - rest.length);
    dropped ||= tail.length + rest.length > 2_000;
    tail = (tail + rest).slice(-2_000);
    for (const line of chunk.split('\n')) if (line.trim()) options.onLog?.(line);
  });
  const stderr = () => (dropped ? `${head}\n…\n${tail}` : head + tail);
  if (child.pid === undefined) await spawnError;
  writeFileSync(pidFile, `${child.pid}\n`);
  if (options.nice !== undefined && child.pid !== undefined) setSessionGroupNice(child.pid, options.nice);
  const address = `${host}:${port}`;

  const stop = async (graceMs = 10_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited(child);
      clearTimeout(timer);
    }
    if (readPid(pidFile) === child.pid) rmSync(pidFile, { force: true });
  };

  try {
    await Promise.race([waitUntilServing(address, options.namespace, child, options.readyTimeoutMs ?? 60_000, stderr), spawnError]);
  } catch (err) {
    await stop(2_000);
    throw err;
  }
  return { address, uiUrl: `http://${host}:${uiPort}`, pid: child.pid ?? 0, stop };
}
