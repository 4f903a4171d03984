import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createApp } from '../api/app.js';
import { createApiKey } from '../core/auth/apiKeys.js';
import { buildDeps, type BuiltDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { freePort } from '../core/embedded/ports.js';
import { createTemporalHandle } from '../core/temporal/client.js';
import { createTestDatabase, type TestDatabase } from './support/db.js';
import { testTemporalAddress } from './support/temporal.js';

const ADMIN_KEY = 'admin-key-for-api-platform-tests';

interface Running {
  url: string;
  deps: BuiltDeps;
  server: Server;
}

async function startApi(db: TestDatabase, temporalAddress: string): Promise<Running> {
  const config = loadConfig({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporalAddress,
    MNEMO_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    BODY_LIMIT: '1kb',
  });
  const deps = buildDeps(config, { temporal: createTemporalHandle(config, temporalAddress) });
  const server = await new Promise<Server>((resolve) => {
    const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, deps, server };
}

async function stopApi(running: Running): Promise<void> {
  await new Promise<void>((resolve) => running.server.close(() => resolve()));
  await running.deps.close();
}

interface ErrorBody {
  error: { code: string; message: string; details: unknown };
}

function expectErrorShape(body: unknown, code: string): ErrorBody['error'] {
  // details is always present (null when there is nothing to add)
  expect(Object.keys(body as object)).toEqual(['error']);
  const { error } = body as ErrorBody;
  expect(Object.keys(error).sort()).toEqual(['code', 'details', 'message']);
  expect(error.code).toBe(code);
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

describe('API platform (auth, errors, health) against real Postgres and Temporal', () => {
  let db: TestDatabase;
  let api: Running;
  let nsAKey: string;

  beforeAll(async () => {
    db = await createTestDatabase('mnemo_api');
    api = await startApi(db, testTemporalAddress());
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      nsAKey = (await createApiKey(pool, { role: 'agent', namespace: 'ns-a' })).key;
    } finally {
      await pool.end();
    }
  });

  afterAll(async () => {
    await stopApi(api);
    await db.drop();
  });

  const get = (path: string, key?: string) =>
    fetch(`${api.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${api.url}${path}`, { method: 'POST', body, headers });

  it('GET /healthz is 200 without a key', async () => {
    const res = await get('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('GET /readyz is 200 when Postgres, Temporal and the migrations are fine', async () => {
    const res = await get('/readyz');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; checks: Record<string, { ok: boolean }> };
    expect(body.status).toBe('ready');
    expect(body.checks).toEqual({ postgres: { ok: true }, temporal: { ok: true }, migrations: { ok: true } });
  });

  it('GET /readyz is 503 naming temporal when Temporal is down', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    const down = await startApi(db, dead);
    try {
      const res = await fetch(`${down.url}/readyz`);
      expect(res.status).toBe(503);
      const error = expectErrorShape(await res.json(), 'unavailable');
      expect(error.message).toMatch(/temporal/);
      expect(error.message).not.toMatch(/postgres/);
      expect(error.details).toMatchObject({ postgres: { ok: true }, temporal: { ok: false }, migrations: { ok: true } });
    } finally {
      await stopApi(down);
    }
  });

  it('a task or dream run Temporal cannot start is 503 with Retry-After, like every 503', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    const down = await startApi(db, dead);
    try {
      const send = (path: string, body: unknown) =>
        fetch(`${down.url}${path}`, {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        });
      // Both wait out the API's deadline for Temporal: sent together, they cost it once.
      const answers = await Promise.all([send('/v1/tasks', { intent: 'weekly digest', schedule: { every: '1h' }, namespace: 'ns-a' }), send('/v1/dream/run', {})]);
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('2');
        expect(expectErrorShape(await res.json(), 'unavailable').details).toEqual({ retry_after_seconds: 2 });
      }
    } finally {
      await stopApi(down);
    }
  }, 30_000);

  it('a missing key is 401', async () => {
    const res = await get('/v1/memories');
    expect(res.status).toBe(401);
    expectErrorShape(await res.json(), 'unauthorized');
  });

  it('a wrong key is 401', async () => {
    const res = await get('/v1/memories', 'mnemo_not-a-real-key');
    expect(res.status).toBe(401);
    expectErrorShape(await res.json(), 'unauthorized');
  });

  it('a malformed Authorization header is 401', async () => {
    const res = await fetch(`${api.url}/v1/memories`, { headers: { authorization: `Basic ${ADMIN_KEY}` } });
    expect(res.status).toBe(401);
    expectErrorShape(await res.json(), 'unauthorized');
  });

  it("a key of another namespace is 403 (GET /v1/memories?namespace=ns-b with an ns-a key)", async () => {
    const res = await get('/v1/memories?namespace=ns-b', nsAKey);
    expect(res.status).toBe(403);
    const error = expectErrorShape(await res.json(), 'forbidden');
    expect(error.message).toContain('ns-b');
  });

  it("the same key works in its own namespace, and MNEMO_API_KEY (admin) in any", async () => {
    expect((await get('/v1/memories?namespace=ns-a', nsAKey)).status).toBe(200);
    expect((await get('/v1/memories', nsAKey)).status).toBe(200);
    expect((await get('/v1/memories?namespace=ns-b', ADMIN_KEY)).status).toBe(200);
  });

  it('a body over BODY_LIMIT is 413', async () => {
    const body = JSON.stringify({ content: 'x'.repeat(4_000), user_id: 'u1' });
    const res = await post('/v1/memories', body, { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` });
    expect(res.status).toBe(413);
    expectErrorShape(await res.json(), 'payload_too_large');
  });

  it('malformed JSON is 400', async () => {
    const res = await post('/v1/memories', '{"content": "unterminated', {
      'content-type': 'application/json',
      authorization: `Bearer ${ADMIN_KEY}`,
    });
    expect(res.status).toBe(400);
    const error = expectErrorShape(await res.json(), 'invalid_input');
    expect(error.message).toMatch(/Malformed JSON/);
  });

  it('a body that is not JSON is 415', async () => {
    const res = await post('/v1/memories', 'content=hello', {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Bearer ${ADMIN_KEY}`,
    });
    expect(res.status).toBe(415);
    expectErrorShape(await res.json(), 'unsupported_media_type');
  });

  it('an unknown route is 404, outside and inside /v1', async () => {
    const outside = await get('/no-such-route');
    expect(outside.status).toBe(404);
    expect(expectErrorShape(await outside.json(), 'not_found').message).toContain('/no-such-route');
    const inside = await get('/v1/no-such-route', ADMIN_KEY);
    expect(inside.status).toBe(404);
    expectErrorShape(await inside.json(), 'not_found');
  });
});
