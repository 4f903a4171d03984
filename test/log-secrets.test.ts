import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createApp } from '../api/app.js';
import { createApiKey } from '../core/auth/apiKeys.js';
import { buildDeps, type BuiltDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { createLogger } from '../core/logger.js';
import { createTemporalHandle } from '../core/temporal/client.js';
import { startWorker, type WorkerRuntime } from '../workers/runtime.js';
import { createTestDatabase, type TestDatabase } from './support/db.js';
import { eventually } from './support/eventually.js';
import { startOpenAIStub, type OpenAIStub } from './support/openaiStub.js';
import { testTemporalAddress } from './support/temporal.js';

const ADMIN_SECRET = `admin-secret-${randomBytes(12).toString('hex')}`;
const OPENAI_SECRET = `sk-openai-secret-${randomBytes(12).toString('hex')}`;
const WEB_SECRET = `web-secret-${randomBytes(12).toString('hex')}`;

/**
 * Every line the API and the worker log, at the most verbose level, with the
 * keys in play: requests with valid, invalid and malformed bearer keys,
 * errors, and an extraction whose model call is refused. None of the secrets
 * may appear in the output.
 */
describe('secrets never appear in logs', () => {
  let output = '';
  let db: TestDatabase;
  let deps: BuiltDeps;
  let server: Server;
  let baseUrl: string;
  let worker: WorkerRuntime;
  let stub: OpenAIStub;
  let agentKey: string;

  beforeAll(async () => {
    stub = await startOpenAIStub();
    db = await createTestDatabase();
    const config = loadConfig({
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: testTemporalAddress(),
      TEMPORAL_TASK_QUEUE: `test-${randomBytes(4).toString('hex')}`,
      MNEMO_API_KEY: ADMIN_SECRET,
      LLM_PROVIDER: 'openai',
      OPENAI_API_KEY: OPENAI_SECRET,
      OPENAI_BASE_URL: stub.url,
      EMBEDDING_PROVIDER: 'hash',
      WEB_APP_BOOTSTRAP_SECRET: WEB_SECRET,
      LOG_LEVEL: 'trace',
      WORKFLOW_BUNDLE_PATH: process.env.WORKFLOW_BUNDLE_PATH,
    });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        output += chunk.toString();
        done();
      },
    });
    deps = buildDeps(config, { temporal: createTemporalHandle(config), logger: createLogger(config, { process: 'test' }, sink) });
    server = await new Promise<Server>((resolve) => {
      const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
    });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    worker = await startWorker(deps, { ensureSchedules: false });
    agentKey = (await createApiKey(deps.pool, { role: 'agent', namespace: 'secrets' })).key;
  });

  afterAll(async () => {
    await worker?.shutdown();
    await new Promise((resolve) => server?.close(resolve));
    await deps?.close();
    await db?.drop();
    await stub?.close();
  });

  async function send(method: string, path: string, authorization: string | null, body?: unknown): Promise<number> {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(authorization === null ? {} : { authorization }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.text();
    return res.status;
  }

  it('logs requests, errors and a failed extraction without any key in them', async () => {
    const wrongKey = `wrong-key-${randomBytes(12).toString('hex')}`;
    const statuses = [
      await send('GET', '/v1/memories', `Bearer ${ADMIN_SECRET}`),
      await send('GET', '/v1/memories', `Bearer ${agentKey}`),
      await send('GET', '/v1/memories', `Bearer ${wrongKey}`),
      await send('GET', '/v1/memories', `Basic ${agentKey}`),
      await send('GET', '/v1/memories', `Bearer ${agentKey} trailing`),
      await send('GET', '/v1/no-such-route', `Bearer ${agentKey}`),
      await send('POST', '/v1/memories', `Bearer ${agentKey}`, { content: 42 }),
      await send('POST', '/v1/memories', `Bearer ${agentKey}`, { content: 'hello', namespace: 'elsewhere' }),
      await send('GET', '/v1/memories/00000000-0000-4000-8000-000000000000', `Bearer ${agentKey}`),
    ];
    expect(statuses).toEqual([200, 200, 401, 401, 401, 404, 400, 403, 404]);
    // Malformed JSON: the parser's error is logged with its message.
    const malformed = await fetch(`${baseUrl}/v1/memories`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: `{"content": "${OPENAI_SECRET.slice(0, 4)}`,
    });
    expect(malformed.status).toBe(400);

    // The model refuses the key: the extraction fails, and the worker logs why.
    stub.enqueue({ status: 401, message: 'Incorrect API key provided' });
    const written = await fetch(`${baseUrl}/v1/memories`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Ada works at Orbital.' }),
    });
    expect(written.status).toBe(202);
    const { id } = (await written.json()) as { id: string };
    const episode = await eventually(
      async () => (await deps.pool.query<{ status: string; error: string | null }>('SELECT status, error FROM episode WHERE id = $1', [id])).rows[0],
      (row) => row.status === 'failed',
      'the extraction failing on the refused key',
      60_000,
    );
    expect(episode.error).toContain('401');

    // A careless log call with the config or a request's headers is redacted too.
    deps.logger.info({ config: deps.config }, 'configuration');
    deps.logger.info({ headers: { authorization: `Bearer ${agentKey}` } }, 'headers');
    deps.logger.info({ req: { headers: { authorization: `Bearer ${ADMIN_SECRET}` } } }, 'request');
    deps.logger.info({ OPENAI_API_KEY: OPENAI_SECRET, apiKey: OPENAI_SECRET }, 'top level');

    await new Promise((r) => setTimeout(r, 200));
    const lines = output.split('\n').filter(Boolean);
    // The capture saw the traffic: access lines for each request, and the redacted careless calls.
    expect(lines.filter((l) => l.includes('"request completed"')).length).toBeGreaterThanOrEqual(statuses.length + 2);
    expect(output).toContain('[redacted]');
    for (const secret of [ADMIN_SECRET, OPENAI_SECRET, WEB_SECRET, agentKey, wrongKey]) {
      expect(output).not.toContain(secret);
    }
    // The database URL's credentials are not logged either (the test database has none, but the URL itself is redacted).
    expect(output).not.toContain(db.url);
    console.log(`log-secrets: ${lines.length} log lines captured, no secret in them`);
  });
});
