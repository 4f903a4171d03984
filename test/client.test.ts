import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiKey } from '../core/auth/apiKeys.js';
import { MnemoApiError, MnemoClient, type MemoryDetail } from '../client/index.js';
import { retryDelayMs } from '../client/transport.js';
import type { z } from 'zod';
import { entityListSchema, entityMemorySchema, neighborhoodSchema } from '../api/schemas/responses/entities.js';
import { listedFactSchema } from '../api/schemas/responses/facts.js';
import { memoryExpandedSchema, memoryRestoreSchema } from '../api/schemas/responses/memories.js';
import { contextBlockSchema, searchResponseSchema } from '../api/schemas/responses/retrieval.js';
import { sessionViewSchema } from '../api/schemas/responses/sessions.js';
import { taskCreatedSchema, taskDetailSchema, taskListSchema } from '../api/schemas/responses/tasks.js';
import { erasureAckSchema, erasureSchema, userExportSchema, userProfileSchema } from '../api/schemas/responses/users.js';
import { eventually } from './support/eventually.js';
import { ADMIN_KEY, startTestStack, type TestStack } from './support/stack.js';

const NS = 'client-ns';
const USER = 'nadia';

/** The answer, after checking it has the shape its response schema (and so the client's type) promises. */
function conforms<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`answer does not match its schema: ${parsed.error.message}\n${JSON.stringify(value)}`);
  return parsed.data;
}

/** What a MnemoApiError-rejecting promise rejected with. */
async function apiError(promise: Promise<unknown>): Promise<MnemoApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MnemoApiError);
  return err as MnemoApiError;
}

describe('typed client against a real stack', () => {
  let stack: TestStack;
  let client: MnemoClient;
  let memory: MemoryDetail;

  beforeAll(async () => {
    stack = await startTestStack();
    client = new MnemoClient({ baseUrl: stack.baseUrl, apiKey: ADMIN_KEY });
    const accepted = await client.memories.write({ content: 'Nadia works at Orbital. Nadia lives in Lisbon.', namespace: NS, user_id: USER });
    expect(accepted.status).toBe('pending');
    memory = await eventually(
      () => client.memories.get(accepted.id),
      (m) => m.status === 'extracted',
      'extraction of the first memory',
      60_000,
    );
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('memories: write (with an Idempotency-Key replayed once), batch, get, list, stages, forget, restore, retry', async () => {
    const key = `client-test-${Date.now()}`;
    const first = await client.memories.write({ content: 'Idempotent note.', namespace: NS }, { idempotencyKey: key });
    const again = await client.memories.write({ content: 'Idempotent note.', namespace: NS }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);

    const batch = await client.memories.batch([
      { content: 'Batch one.', namespace: NS },
      { content: 'Batch two.', namespace: NS },
    ]);
    expect(batch.memories).toHaveLength(2);

    expect(memory.fact_ids.length).toBeGreaterThan(0);
    const expanded = conforms(memoryExpandedSchema, await client.memories.getExpanded(memory.id));
    expect(expanded.facts.map((f) => f.id).sort()).toEqual([...memory.fact_ids].sort());

    const page = await client.memories.list({ namespace: NS, limit: 2 });
    expect(page.memories).toHaveLength(2);
    expect(page.next_cursor).not.toBeNull();
    const next = await client.memories.list({ namespace: NS, limit: 2, cursor: page.next_cursor! });
    expect(next.memories[0].id).not.toBe(page.memories[0].id);

    const stages = await client.memories.stages(memory.id);
    expect(stages.stages.length).toBeGreaterThan(0);

    const forgotten = await client.memories.forget(batch.memories[0].id);
    expect(forgotten.id).toBe(batch.memories[0].id);
    const restored = conforms(memoryRestoreSchema, await client.memories.restore(batch.memories[0].id));
    expect(restored.restored).toBe(true);
    const deleted = await client.memories.delete(batch.memories[1].id);
    expect(deleted.forgotten_at).toEqual(expect.any(String));

    // Only failed memories can be retried: the server's conflict comes back typed.
    const conflict = await apiError(client.memories.retry(memory.id));
    expect(conflict).toMatchObject({ status: 409, code: 'conflict' });
  });

  it('a 404 is a MnemoApiError with the server code, message and details; a 400 carries the field details', async () => {
    const missing = await apiError(client.memories.get('00000000-0000-4000-8000-000000000000'));
    expect(missing).toMatchObject({ status: 404, code: 'not_found', message: 'Memory not found', details: null });

    const invalid = await apiError(client.memories.write({ content: '', namespace: NS }));
    expect(invalid.status).toBe(400);
    expect(invalid.code).toBe('invalid_input');
    expect((invalid.details as Array<{ field: string }>).map((d) => d.field)).toContain('content');

    const other = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'client-other' });
    const stranger = new MnemoClient({ baseUrl: stack.baseUrl, apiKey: other.key });
    expect(await apiError(stranger.facts.list({ namespace: NS }))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await apiError(new MnemoClient({ baseUrl: stack.baseUrl, apiKey: 'nope' }).search({ query: 'x' }))).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('search, context, facts (list, create, correct, forget, restore)', async () => {
    const search = conforms(searchResponseSchema, await client.search({ query: 'Where does Nadia work?', namespace: NS, k: 5 }));
    expect(search.results.length).toBeGreaterThan(0);
    expect(search.recipe).toEqual(expect.any(String));

    const context = conforms(contextBlockSchema, await client.context({ query: 'Nadia', namespace: NS, user_id: USER, max_tokens: 500 }));
    expect(context.text).toContain('Orbital');
    expect(context.token_count).toBeGreaterThan(0);

    const { facts } = await client.facts.list({ namespace: NS, include_invalidated: false });
    const orbital = facts.find((f) => f.fact_text.includes('Orbital'));
    expect(orbital).toBeDefined();

    const corrected = conforms(listedFactSchema, await client.facts.correct(orbital!.id, { confidence: 0.42, reason: 'client test' }));
    expect(corrected.confidence).toBeCloseTo(0.42);
    expect(corrected.id).toBe(orbital!.id);
    expect((await client.facts.forget(orbital!.id)).id).toBe(orbital!.id);
    expect(await client.facts.restore(orbital!.id)).toEqual({ id: orbital!.id, restored: true });

    const explicit = await client.facts.create({ namespace: NS, user_id: USER, fact: { subject: 'Nadia', predicate: 'likes', value: 'green tea' } });
    expect(explicit.episode_id).toBe(explicit.id);
  });

  it('entities: list, get, neighborhood, forget, restore', async () => {
    const { entities } = conforms(entityListSchema, await client.entities.list({ namespace: NS, q: 'Orbital' }));
    const orbital = entities.find((e) => e.name === 'Orbital');
    expect(orbital).toBeDefined();
    const detail = conforms(entityMemorySchema, await client.entities.get(orbital!.id, { namespace: NS }));
    expect(detail.entity.id).toBe(orbital!.id);
    expect(detail.facts.length).toBeGreaterThan(0);
    const graph = conforms(neighborhoodSchema, await client.entities.neighborhood(orbital!.id, { namespace: NS, depth: 2 }));
    expect(graph.nodes.map((n) => n.id)).toContain(orbital!.id);
    expect((await client.entities.forget(orbital!.id)).id).toBe(orbital!.id);
    expect((await client.entities.restore(orbital!.id)).restored).toBe(true);
  });

  it('sessions: add a turn, read the session', async () => {
    const ack = await client.sessions.addTurn('client-task', { role: 'tool', content: 'looked it up', tool_result: { hits: [1, 2] }, namespace: NS });
    expect(ack.turn_index).toBe(0);
    const session = conforms(sessionViewSchema, await client.sessions.get('client-task', { namespace: NS }));
    expect(session.turns[0]).toMatchObject({ role: 'tool', content: 'looked it up', tool_result: { hits: [1, 2] } });
  });

  it('tasks: create, list, get, progress, pause, resume, budget, cancel', async () => {
    const created = conforms(taskCreatedSchema, await client.tasks.create({ intent: 'Check the build', schedule: { every: '1h' }, namespace: NS }));
    expect(created.status).toBe('active');
    const { tasks } = conforms(taskListSchema, await client.tasks.list({ namespace: NS }));
    expect(tasks.map((t) => t.id)).toContain(created.id);
    expect(conforms(taskDetailSchema, await client.tasks.get(created.id)).intent).toBe('Check the build');
    expect((await client.tasks.progress(created.id, { note: 'half way', percent: 50 })).signal).toBe('progress');
    expect((await client.tasks.pause(created.id)).signal).toBe('pause');
    await eventually(() => client.tasks.get(created.id), (t) => t.status === 'paused', 'task paused');
    expect((await client.tasks.resume(created.id)).signal).toBe('resume');
    expect((await client.tasks.setBudget(created.id, { error_budget: 5 })).signal).toBe('setBudget');
    expect((await client.tasks.cancel(created.id)).signal).toBe('cancel');
    await eventually(() => client.tasks.get(created.id), (t) => t.status === 'cancelled', 'task cancelled');
  });

  it('reviews: list, and a typed 404 for an unknown item and its decisions', async () => {
    const page = await client.reviews.list({ namespace: NS });
    expect(Array.isArray(page.reviews)).toBe(true);
    const unknown = '00000000-0000-4000-8000-000000000001';
    expect(await apiError(client.reviews.get(unknown))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await apiError(client.reviews.approve(unknown, { note: 'ok' }))).toMatchObject({ status: 404 });
    expect(await apiError(client.reviews.resolve(unknown, { keep_fact_id: unknown }))).toMatchObject({ status: 404 });
  });

  it('users: profile, export, erase and the erasure record', async () => {
    const profile = conforms(userProfileSchema, await client.users.profile(USER, { namespace: NS }));
    expect(profile.fact_count).toBeGreaterThan(0);
    const exported = conforms(userExportSchema, await client.users.export(USER, { namespace: NS, include_forgotten: true }));
    expect(exported.user_id).toBe(USER);
    expect(exported.episodes.length).toBeGreaterThan(0);
    const ack = conforms(erasureAckSchema, await client.users.erase(USER, { namespace: NS }));
    expect(ack.workflow_id).toBe(`erase:${NS}:${USER}`);
    const done = await eventually(() => client.users.erasure(ack.id), (e) => e.status === 'completed', 'erasure', 60_000);
    expect(conforms(erasureSchema, done).counts.episodes).toBeGreaterThan(0);
  });
});

describe('typed client retries', () => {
  let server: Server;
  let baseUrl: string;
  const seen: Array<{ at: number; method: string; url: string; key: string | undefined; body: string }> = [];
  /** What the fake answers next, in order; the last one repeats. */
  let script: Array<{ status: number; headers?: Record<string, string>; body: unknown }> = [];

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => resolve(text));
    });

  beforeAll(async () => {
    server = createServer((req, res) => {
      void readBody(req).then((body) => {
        seen.push({ at: Date.now(), method: req.method!, url: req.url!, key: req.headers['idempotency-key'] as string | undefined, body });
        const next = script.length > 1 ? script.shift()! : script[0];
        res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
        res.end(JSON.stringify(next.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const accepted = { id: '0b6f3c1e-6a0e-4c1f-9d7e-2f2d8c5e9a11', workflow_id: 'episode:0b6f3c1e-6a0e-4c1f-9d7e-2f2d8c5e9a11', status: 'pending' };
  const unavailable = { error: { code: 'unavailable', message: 'Extraction is behind; nothing was stored, retry later', details: { retry_after_seconds: 1 } } };

  it('retries a 503 after its Retry-After seconds, with the same Idempotency-Key and body', async () => {
    script = [{ status: 503, headers: { 'retry-after': '1' }, body: unavailable }, { status: 202, body: accepted }];
    const client = new MnemoClient({ baseUrl, apiKey: 'k' });
    const answer = await client.memories.write({ content: 'hello' });
    expect(answer).toEqual(accepted);
    expect(seen).toHaveLength(2);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
    expect(seen[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1].key).toBe(seen[0].key);
    expect(seen[1].body).toBe(seen[0].body);
    // A new logical write gets a new key.
    script = [{ status: 202, body: accepted }];
    await client.memories.batch([{ content: 'again' }]);
    expect(seen[2].key).not.toBe(seen[0].key);
    expect(seen[2].url).toBe('/v1/memories/batch');
  });

  it('retries a 429 whose Retry-After is an HTTP date, capping the wait', async () => {
    const inAnHour = new Date(Date.now() + 3_600_000).toUTCString();
    script = [{ status: 429, headers: { 'retry-after': inAnHour }, body: { error: { code: 'rate_limited', message: 'slow down', details: null } } }, { status: 200, body: { facts: [] } }];
    const client = new MnemoClient({ baseUrl, apiKey: 'k', maxRetryDelayMs: 300 });
    const started = Date.now();
    expect(await client.facts.list()).toEqual({ facts: [] });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(seen).toHaveLength(2);
    expect(seen[0].key).toBeUndefined();
  });

  it('gives up after maxRetries with the last typed error', async () => {
    script = [{ status: 503, headers: { 'retry-after': '0' }, body: unavailable }];
    const client = new MnemoClient({ baseUrl, apiKey: 'k', maxRetries: 2 });
    const err = await apiError(client.memories.write({ content: 'x' }));
    expect(err).toMatchObject({ status: 503, code: 'unavailable', retryAfterSeconds: 0, details: { retry_after_seconds: 1 } });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.key)).size).toBe(1);
  });

  it('does not retry other errors', async () => {
    script = [{ status: 409, body: { error: { code: 'conflict', message: 'no', details: null } } }];
    const err = await apiError(new MnemoClient({ baseUrl, apiKey: 'k' }).memories.retry('x'));
    expect(err.code).toBe('conflict');
    expect(seen).toHaveLength(1);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-10T09:00:00Z');
    expect(retryDelayMs('2', 0, now, 30_000)).toBe(2_000);
    expect(retryDelayMs('Sat, 10 Jan 2026 09:00:05 GMT', 0, now, 30_000)).toBe(5_000);
    expect(retryDelayMs('120', 0, now, 30_000)).toBe(30_000);
    const backoff = retryDelayMs(null, 2, now, 30_000);
    expect(backoff).toBeGreaterThanOrEqual(500);
    expect(backoff).toBeLessThanOrEqual(1_000);
  });
});
