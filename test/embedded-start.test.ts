import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../core/embedded/ports.js';
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

  it('refuses a second Mnemo on the same DATA_DIR while the first runs', async () => {
    const port = await freePort();
    const first = startMnemo({ DATA_DIR: dataDir, PORT: String(port), TEMPORAL_UI_PORT: String(await freePort()) });
    running.push(first);
    await waitForReady(`http://127.0.0.1:${port}`, first, 60_000);
    const second = startMnemo({ DATA_DIR: dataDir, PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()) });
    running.push(second);
    expect(await second.exit).toBe(1);
    expect(second.output()).toMatch(/Another Mnemo \(pid \d+\) is using this data folder/);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect(await stop(first)).toBe(0);
  }, 180_000);
});
