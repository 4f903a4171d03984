import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../core/embedded/ports.js';
import { readProcStat } from '../core/embedded/procStat.js';
import { ROOT } from './support/paths.js';

/** `npm start` is `node --import tsx scripts/start.ts`: the same command without npm in between. */
interface Started {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function startMnemo(env: Record<string, string>): Started {
  const clean = { ...process.env };
  // The embedded default is what is under test: no external services, no jest flags.
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'MNEMO_API_KEY', 'NODE_OPTIONS', 'MNEMO_TEST_TEMPORAL_ADDRESS']) delete clean[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env: { ...clean, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function waitForReady(url: string, started: Started, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`npm start exited with ${started.child.exitCode}:\n${started.output()}`);
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) });
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(250);
  }
  throw new Error(`/readyz not 200 within ${timeoutMs} ms (last: ${last}):\n${started.output()}`);
}

async function stop(started: Started): Promise<number | null> {
  started.child.kill('SIGTERM');
  // unref'd: a pending 30 s timer must not keep jest alive once the process has exited
  const code = await Promise.race([started.exit, sleep(30_000, 'timeout' as const, { ref: false })]);
  if (code === 'timeout') {
    started.child.kill('SIGKILL');
    throw new Error(`npm start did not stop within 30 s of SIGTERM:\n${started.output()}`);
  }
  return code;
}

function printed(output: string, label: string): string {
  const match = new RegExp(`^\\s*${label}:\\s+(\\S+)`, 'm').exec(output);
  if (!match) throw new Error(`"${label}:" was not printed:\n${output}`);
  return match[1];
}

/** ppid and nice of a process (or thread), from /proc. */
function procStat(pid: number, tid = pid): { ppid: number; nice: number } {
  const stat = readProcStat(pid, tid);
  if (!stat) throw new Error(`no process ${pid} (thread ${tid})`);
  return stat;
}

/** The pids whose parent is `ppid`, with their command lines. */
function childrenOf(ppid: number): Array<{ pid: number; cmd: string }> {
  const found: Array<{ pid: number; cmd: string }> = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      if (procStat(pid).ppid === ppid) found.push({ pid, cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // ended while listed
    }
  }
  return found;
}

/** Alive and not a zombie waiting for a parent (an orphan's new parent may be slow to reap it). */
function isAlive(pid: number): boolean {
  const state = readProcStat(pid)?.state;
  return state !== undefined && state !== 'Z';
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(250);
  }
}

describe('npm start (embedded PGlite + Temporal dev server)', () => {
  let dataDir: string;
  const running: Started[] = [];

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-start-'));
  });

  afterAll(async () => {
    for (const s of running) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('comes up with an empty DATA_DIR, stops on SIGTERM, and a restart finds what was written', async () => {
    const port = await freePort();
    const env = { DATA_DIR: dataDir, PORT: String(port), TEMPORAL_UI_PORT: String(await freePort()) };
    const url = `http://127.0.0.1:${port}`;

    const first = startMnemo(env);
    running.push(first);
    await waitForReady(url, first, 60_000);

    // Everything the brief promises is printed.
    const out = first.output();
    expect(printed(out, 'API')).toBe(url);
    expect(printed(out, 'Temporal UI')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(printed(out, 'Postgres')).toMatch(/^postgresql:\/\/.*@127\.0\.0\.1:\d+\//);
    const key = printed(out, 'API key');
    expect(key).toMatch(/^mnemo_/);
    // The generated admin key is stored owner-only under DATA_DIR.
    expect(statSync(path.join(dataDir, 'api-key')).mode & 0o777).toBe(0o600);

    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const write = await fetch(`${url}/v1/memories`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ content: 'Alice moved to Berlin in March.', user_id: 'alice' }),
    });
    expect(write.status).toBe(202);
    const { id } = (await write.json()) as { id: string };
    expect(id).toEqual(expect.any(String));

    expect(await stop(first)).toBe(0);
    expect(first.output()).not.toMatch(/shutdown failed|stopping .* failed/);

    const second = startMnemo(env);
    running.push(second);
    await waitForReady(url, second, 60_000);
    // Same key (reused from DATA_DIR/api-key), same data.
    expect(printed(second.output(), 'API key')).toBe(key);
    const read = await fetch(`${url}/v1/memories/${id}`, { headers: auth });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id, content: 'Alice moved to Berlin in March.' });
    expect(await stop(second)).toBe(0);
  }, 240_000);

  // One start for both (each start costs CI about 20 s of CPU).
  it('refuses a second Mnemo on its DATA_DIR; runs the worker in a process of its own at WORKER_NICE, starts another when it dies, and takes it down when killed', async () => {
    const ownDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-start-worker-'));
    // The test above starts from an empty DATA_DIR; this one starts where a migrated database already is (the run's
    // migrated PGlite, saved as a tarball by the global setup): PGlite's initdb and the migrations cost 10-odd s of CPU.
    const migrated = process.env.MNEMO_TEST_MIGRATED_TEMPLATE;
    if (migrated?.endsWith('.tar')) {
      mkdirSync(path.join(ownDir, 'pg'));
      execFileSync('tar', ['-xf', migrated, '-C', path.join(ownDir, 'pg')], { stdio: 'pipe' });
    }
    try {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const started = startMnemo({ DATA_DIR: ownDir, PORT: String(port), TEMPORAL_UI_PORT: String(await freePort()), WORKER_NICE: '7' });
      running.push(started);
      await waitForReady(url, started, 60_000);

      const second = startMnemo({ DATA_DIR: ownDir, PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()) });
      running.push(second);
      expect(await second.exit).toBe(1);
      expect(second.output()).toMatch(/Another Mnemo \(pid \d+\) is using this data folder/);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);

      const mnemoPid = started.child.pid!;
      const workerPid = Number(/^\s*Worker:\s+pid (\d+)/m.exec(started.output())?.[1]);
      // A child of npm start, every one of its threads at the configured priority; the API's process is not.
      expect(procStat(workerPid).ppid).toBe(mnemoPid);
      const threads = readdirSync(`/proc/${workerPid}/task`).map(Number);
      expect(threads.length).toBeGreaterThan(1);
      expect(threads.map((tid) => procStat(workerPid, tid).nice)).toEqual(threads.map(() => 7));
      expect(procStat(mnemoPid).nice).toBe(0);

      // The worker dies: npm start keeps answering, starts another, and what is written meanwhile is extracted.
      process.kill(workerPid, 'SIGKILL');
      const auth = { authorization: `Bearer ${printed(started.output(), 'API key')}`, 'content-type': 'application/json' };
      const write = await fetch(`${url}/v1/memories`, { method: 'POST', headers: auth, body: JSON.stringify({ content: 'Bruno joined Acme in May.', user_id: 'bruno' }) });
      expect(write.status).toBe(202);
      const { id } = (await write.json()) as { id: string };
      const replacement = await until('another worker process', 30_000, () =>
        childrenOf(mnemoPid).find((c) => c.pid !== workerPid && c.cmd.includes('workers/child')),
      );
      await until('the write extracted by the new worker', 60_000, async () => {
        const res = await fetch(`${url}/v1/memories/${id}`, { headers: auth });
        const body = (await res.json()) as { status?: string };
        return body.status === 'extracted' ? body : undefined;
      });
      expect(started.output()).toMatch(/the worker process stopped; starting another/);
      expect(procStat(replacement.pid).nice).toBe(7);

      // npm start killed outright: its worker notices and stops too (no orphan left polling).
      started.child.kill('SIGKILL');
      await started.exit;
      await until('the worker process gone', 30_000, () => (isAlive(replacement.pid) ? undefined : true));
    } finally {
      // The Temporal dev server runs detached (the next start would stop it): after a SIGKILL this test stops it.
      const temporalPidFile = path.join(ownDir, 'temporal', 'server.pid');
      const temporalPid = existsSync(temporalPidFile) ? Number(readFileSync(temporalPidFile, 'utf8')) : 0;
      for (const s of running) if (s.child.exitCode === null) s.child.kill('SIGKILL');
      if (temporalPid && isAlive(temporalPid)) process.kill(temporalPid, 'SIGKILL');
      rmSync(ownDir, { recursive: true, force: true });
    }
  }, 180_000);
});
