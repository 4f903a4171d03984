import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../../api/app.js';
import { buildDeps, type BuiltDeps } from '../../core/buildDeps.js';
import { loadConfig } from '../../core/config/config.js';
import { createTemporalHandle } from '../../core/temporal/client.js';
import { startWorker, type StartWorkerOptions, type WorkerRuntime } from '../../workers/runtime.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { testTemporalAddress } from './temporal.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface TestStack {
  db: TestDatabase;
  deps: BuiltDeps;
  baseUrl: string;
  worker: WorkerRuntime | null;
  request<T = unknown>(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: T }>;
  startWorker(options?: StartWorkerOptions): Promise<WorkerRuntime>;
  stop(): Promise<void>;
}

export interface StackOptions {
  env?: Record<string, string>;
  temporalAddress?: string;
  withWorker?: boolean;
  workerOptions?: StartWorkerOptions;
}

/**
 * A real stack for integration tests: a fresh migrated database, the API on an
 * ephemeral port and (by default) a worker on a task queue of its own.
 */
export async function startTestStack(options: StackOptions = {}): Promise<TestStack> {
  const db = await createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: options.temporalAddress ?? testTemporalAddress(),
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(4).toString('hex')}`,
    MNEMO_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    WORKFLOW_BUNDLE_PATH: process.env.WORKFLOW_BUNDLE_PATH,
    ...options.env,
  } as NodeJS.ProcessEnv);
  const deps = buildDeps(config, { temporal: createTemporalHandle(config) });
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const workers: WorkerRuntime[] = [];
  const stack: TestStack = {
    db,
    deps,
    baseUrl,
    worker: null,
    async request<T>(method: string, path: string, body?: unknown, key = ADMIN_KEY) {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
    async startWorker(workerOptions: StartWorkerOptions = {}) {
      const runtime = await startWorker(deps, { ensureSchedules: false, ...options.workerOptions, ...workerOptions });
      workers.push(runtime);
      stack.worker = runtime;
      return runtime;
    },
    async stop() {
      await Promise.allSettled(workers.map((w) => w.shutdown()));
      await new Promise((resolve) => server.close(resolve));
      server.closeAllConnections?.();
      await deps.close();
      await db.drop();
    },
  };
  if (options.withWorker ?? true) await stack.startWorker();
  return stack;
}

/** Polls `GET /v1/memories/:id` until its status is one of `statuses`. */
export async function waitForStatus(
  stack: TestStack,
  id: string,
  statuses: string[] = ['extracted', 'failed', 'skipped'],
  timeoutMs = 60_000,
): Promise<{ status: string; error: string | null; entity_ids: string[]; fact_ids: string[] }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await stack.request<{ status: string; error: string | null; entity_ids: string[]; fact_ids: string[] }>('GET', `/v1/memories/${id}`);
    if (res.status === 200 && statuses.includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`memory ${id} did not reach ${statuses.join('/')} (last: ${JSON.stringify(res.body)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Writes a memory and waits until its extraction finished. */
export async function remember(
  stack: TestStack,
  body: Record<string, unknown>,
): Promise<{ id: string; status: string; error: string | null; entity_ids: string[]; fact_ids: string[] }> {
  const res = await stack.request<{ id: string }>('POST', '/v1/memories', body);
  if (res.status !== 202) throw new Error(`POST /v1/memories → ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, ...(await waitForStatus(stack, res.body.id)) };
}
