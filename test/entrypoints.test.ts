import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { Connection } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../core/embedded/ports.js';
import { readProcStat } from '../core/embedded/procStat.js';
import { createEmptyDatabase, type TestDatabase } from './support/db.js';
import { ROOT } from './support/paths.js';
import { testTemporalAddress } from './support/temporal.js';

interface Proc {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function run(script: string, env: Record<string, string>, args: string[] = []): Proc {
  const base = { ...process.env };
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'MNEMO_API_KEY', 'NODE_OPTIONS']) delete base[name];
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...base, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output, exit: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

async function until(what: string, proc: Proc, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`exited (${proc.child.exitCode}) before ${what}:\n${proc.output()}`);
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}:\n${proc.output()}`);
}

/** The live processes `pid` started. */
function childPids(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((p) => readProcStat(p)?.ppid === pid);
}

/** A GET on a connection of its own (no keep-alive), so the primary hands each to the next API process. */
function getAlone(url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
  });
}

describe('production entry points (npm run api / npm run worker)', () => {
  it.each([
    ['api/main.ts', 'npm run api'],
    ['workers/main.ts', 'npm run worker'],
  ])('%s refuses to start without DATABASE_URL and TEMPORAL_ADDRESS', async (script, command) => {
    const proc = run(script, {});
    expect(await proc.exit).toBe(1);
    expect(proc.output()).toContain(`${command} needs DATABASE_URL and TEMPORAL_ADDRESS`);
  });

  it('api/main.ts stops on a bad variable with a message naming it', async () => {
    const proc = run('api/main.ts', { PORT: 'eighty' });
    expect(await proc.exit).toBe(1);
    expect(proc.output()).toContain('PORT: must be a number');
  });

  describe('against the test PostgreSQL and Temporal', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createEmptyDatabase('mnemo_entry');
    });
    afterAll(async () => {
      await db.drop();
    });

    it('npm run api with MIGRATE_ON_START=true migrates an empty database and becomes ready; SIGTERM exits 0', async () => {
      const port = await freePort();
      const api = run('api/main.ts', {
        DATABASE_URL: db.url,
        TEMPORAL_ADDRESS: testTemporalAddress(),
        MIGRATE_ON_START: 'true',
        MNEMO_API_KEY: 'entrypoint-test-admin-key',
        PORT: String(port),
      });
      try {
        await until('/readyz 200', api, async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200);
        // The container healthcheck agrees.
        const health = run('scripts/healthcheck.ts', { PORT: String(port), HOST: '127.0.0.1' }, ['api']);
        expect(await health.exit).toBe(0);
      } finally {
        api.child.kill('SIGTERM');
      }
      expect(await api.exit).toBe(0);
    }, 120_000);

    it('npm run api with API_PROCESSES=2 serves from two processes on one port: /metrics sums them, one killed is started again, SIGTERM stops all', async () => {
      const port = await freePort();
      const key = 'entrypoint-test-admin-key';
      const base = `http://127.0.0.1:${port}`;
      const api = run('api/main.ts', {
        DATABASE_URL: db.url,
        TEMPORAL_ADDRESS: testTemporalAddress(),
        MIGRATE_ON_START: 'true',
        MNEMO_API_KEY: key,
        PORT: String(port),
        API_PROCESSES: '2',
      });
      const pid = api.child.pid!;
      const metrics = async () => {
        const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
        return res.text();
      };
      const listed = (text: string) =>
        Number(/mnemo_http_request_duration_seconds_count\{method="GET",route="\/v1\/memories",status="200"\} (\d+)/.exec(text)?.[1] ?? 0);
      try {
        await until('/readyz 200', api, async () => (await fetch(`${base}/readyz`)).status === 200);
        const first = childPids(pid);
        expect(first).toHaveLength(2);
        // Each on its own connection: spread over both processes, counted once each in the sum.
        const statuses = await Promise.all(Array.from({ length: 12 }, () => getAlone(`${base}/v1/memories?namespace=entry-cluster`, key)));
        expect(statuses).toEqual(Array(12).fill(200));
        const summed = await metrics();
        expect(summed).toContain('# mnemo: the sum over 2 of 2 API processes');
        expect(listed(summed)).toBe(12);
        // The database's families appear once, not once per process.
        expect(summed.match(/^# TYPE mnemo_episodes gauge$/gm)).toHaveLength(1);

        process.kill(first[0], 'SIGKILL');
        await until('a new API process in place of the killed one', api, async () => {
          const now = childPids(pid);
          return now.length === 2 && !now.includes(first[0]);
        });
        await until('both processes answering /metrics', api, async () => (await metrics()).includes('the sum over 2 of 2 API processes'));
        expect(await getAlone(`${base}/v1/memories?namespace=entry-cluster`, key)).toBe(200);
      } finally {
        api.child.kill('SIGTERM');
      }
      expect(await api.exit).toBe(0);
      expect(childPids(pid)).toEqual([]);
    }, 120_000);

    it('npm run api with API_PROCESSES=2 on a port already taken exits 1 and leaves no process behind', async () => {
      const taken = http.createServer();
      const port = await freePort();
      await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
      const api = run('api/main.ts', { DATABASE_URL: db.url, TEMPORAL_ADDRESS: testTemporalAddress(), PORT: String(port), API_PROCESSES: '2' });
      try {
        expect(await api.exit).toBe(1);
        expect(api.output()).toContain(`PORT ${port} on 127.0.0.1 is already in use`);
        expect(api.output()).toContain('an API process exited before any served');
        expect(childPids(api.child.pid!)).toEqual([]);
      } finally {
        taken.close();
      }
    }, 60_000);

    it('npm run worker polls its task queue (the container healthcheck sees it) at WORKER_NICE priority; SIGTERM exits 0', async () => {
      const env = {
        DATABASE_URL: db.url,
        TEMPORAL_ADDRESS: testTemporalAddress(),
        TEMPORAL_TASK_QUEUE: `entrypoint-${process.pid}-${Date.now()}`,
        WORKER_NICE: '7',
      };
      const worker = run('workers/main.ts', env);
      // Waits for the poller here (a healthcheck process per probe cost CI 20-odd s of CPU), then asks the healthcheck.
      const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
      try {
        await until('a poller on the task queue', worker, async () => {
          const { pollers } = await connection.workflowService.describeTaskQueue({
            namespace: 'default',
            taskQueue: { name: env.TEMPORAL_TASK_QUEUE },
            taskQueueType: 1,
          });
          return (pollers ?? []).length > 0;
        }, 90_000);
        const health = run('scripts/healthcheck.ts', env, ['worker']);
        expect(await health.exit).toBe(0);
        expect(os.getPriority(worker.child.pid)).toBe(7);
      } finally {
        worker.child.kill('SIGTERM');
        await connection.close();
      }
      expect(await worker.exit).toBe(0);
    }, 150_000);
  });
});
