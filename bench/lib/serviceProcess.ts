// An API or worker process (`api/main.ts`, `workers/main.ts`, exactly as
// production runs them) that a chaos run can SIGKILL and start again, and
// that is started again when it exits by itself (as a supervisor would).
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { entryArgs } from '../../test/support/compiledSources.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServiceOptions {
  name: string;
  /** Entry point relative to the repository root. */
  entry: string;
  env: Record<string, string>;
  /** Its stderr is appended here (one file per service, across restarts). */
  logFile: string;
  /** Resolves once the process serves (e.g. /healthz answers); none: as soon as it is spawned. */
  ready?: () => Promise<boolean>;
  readyTimeoutMs?: number;
}

export class ServiceProcess {
  private child: ChildProcess | null = null;
  private stopping = false;
  /** Exits nobody asked for (a crash): the supervisor started it again. */
  unexpectedExits: Array<{ at: string; code: number | null; signal: string | null }> = [];
  starts = 0;

  constructor(private readonly options: ServiceOptions) {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    writeFileSync(options.logFile, ''); // this run's output only; restarts within the run append
    process.once('exit', () => this.child?.kill('SIGKILL'));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    this.stopping = false;
    const child = spawn(process.execPath, entryArgs(this.options.entry), {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '', ...this.options.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    this.starts++;
    child.stderr?.on('data', (d: Buffer) => appendFileSync(this.options.logFile, d));
    child.once('exit', (code, signal) => {
      if (this.child !== child || this.stopping) return;
      this.unexpectedExits.push({ at: new Date().toISOString(), code, signal });
      appendFileSync(this.options.logFile, `\n[chaos] ${this.options.name} exited by itself (${code ?? signal}); restarting\n`);
      this.child = null;
      void sleep(1_000).then(() => (this.child || this.stopping ? undefined : this.start().catch(() => undefined)));
    });
    await this.waitReady(child);
  }

  private async waitReady(child: ChildProcess): Promise<void> {
    if (!this.options.ready) return;
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 60_000);
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${this.options.name} exited while starting; see ${this.options.logFile}`);
      if (await this.options.ready().catch(() => false)) return;
      await sleep(200);
    }
    throw new Error(`${this.options.name} not ready after ${this.options.readyTimeoutMs ?? 60_000} ms; see ${this.options.logFile}`);
  }

  /** Sends `signal` and waits for the exit; the supervisor does not restart it. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
    this.stopping = true;
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  /** A crash: SIGKILL, no shutdown hooks run. */
  kill(): Promise<void> {
    return this.stop('SIGKILL');
  }
}

/** A `ready` check: `url` answers 2xx. */
export function answers(url: string): () => Promise<boolean> {
  return async () => (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;
}
