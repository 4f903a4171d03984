import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { v1Routes } from '../api/routes/v1.js';
import { createApiKey } from '../core/auth/apiKeys.js';
import { EMBEDDED_DATABASE } from './support/env.js';
import { fillPath, listRoutes, pathParams, type CatalogRoute } from './support/routeCatalog.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';

/**
 * Tenants: keys scoped to namespace A can never read, search, export, signal,
 * erase or stream anything of namespace B through any route (every `/v1`
 * route, found by walking the router; `/mcp`; the thread SSE stream), even
 * with B's ids guessed or leaked: a B id answers exactly as a random id that
 * does not exist (404), an explicit `namespace=B` is refused (403), no answer
 * carries B's data, and B's rows never change.
 */

const A = 'tenant-a';
const B = 'tenant-b';
const B_USER = 'userb-7q';
const B_SESSION = 'sess-bravo-1';
/** Words only B's data contains: an answer to A holding one of them leaked B. */
const B_WORDS = ['Zebulon', 'Quarrington', 'Vexmoor', 'Thistlewick', 'bravo-secret'];

/** Routes that serve nothing of any namespace (the predicate ontology): they may ignore a `namespace` parameter. */
const GLOBAL_ROUTES = new Set(['GET /ontology']);

const RUNS = EMBEDDED_DATABASE ? 150 : 300;
/** A failure prints its seed; TENANT_FUZZ_SEED replays that run. */
const SEED = process.env.TENANT_FUZZ_SEED === undefined ? undefined : Number(process.env.TENANT_FUZZ_SEED);

interface Answer {
  status: number;
  code: string | null;
  text: string;
}

describe('tenant isolation: a key of namespace A never reaches namespace B', () => {
  let stack: TestStack;
  let routes: CatalogRoute[];
  let keysOfA: string[];
  /** B's ids by kind; `all` is every one of them. */
  const bIds: Record<string, string[]> = { all: [] };
  let snapshotSql: string;

  beforeAll(async () => {
    stack = await startTestStack();
    routes = listRoutes(v1Routes(stack.deps));
    keysOfA = [
      (await createApiKey(stack.deps.pool, { role: 'agent', namespace: A })).key,
      (await createApiKey(stack.deps.pool, { role: 'operator', namespace: A })).key,
    ];
    // B's data, written by the admin: extracted memories (episodes, entities, facts), a task, a thread, a session, an erasure.
    const add = (kind: string, id: unknown) => {
      if (typeof id !== 'string') return;
      (bIds[kind] ??= []).push(id);
      bIds.all.push(id);
    };
    for (const content of [
      'Zebulon Quarrington works at Vexmoor Industries.',
      'Zebulon Quarrington lives in Thistlewick and prefers green tea.',
    ]) {
      const done = await remember(stack, { content, namespace: B, user_id: B_USER });
      expect(done.status).toBe('extracted');
      add('memory', done.id);
      done.fact_ids.forEach((id) => add('fact', id));
      done.entity_ids.forEach((id) => add('entity', id));
    }
    const task = await stack.request<{ id: string }>('POST', '/v1/tasks', { intent: 'bravo-secret task', schedule: { every: '24h' }, namespace: B, user_id: B_USER });
    add('task', task.body.id);
    const thread = await stack.request<{ id: string }>('POST', '/v1/threads', { title: 'bravo-secret plan', participants: ['agent-b'], namespace: B });
    add('thread', thread.body.id);
    await stack.request('POST', `/v1/threads/${thread.body.id}/messages`, { sender: 'agent-b', content: 'bravo-secret message', namespace: B });
    await stack.request('POST', `/v1/sessions/${B_SESSION}/turns`, { role: 'user', content: 'bravo-secret turn by Zebulon', namespace: B, user_id: B_USER });
    const erased = await stack.request<{ id?: string; workflow_id?: string }>('DELETE', `/v1/users/userb-erased?namespace=${B}`);
    add('erasure', erased.body?.workflow_id ?? erased.body?.id ?? `erase:${B}:userb-erased`);
    // A has data of its own, so A's reads answer with something.
    await remember(stack, { content: 'Alma Lindqvist works at Orbital.', namespace: A, user_id: 'usera' });

    // Every row of B, in every table that has a namespace column, as one digest.
    const { rows } = await stack.deps.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'namespace' ORDER BY table_name`,
    );
    snapshotSql = `SELECT ${rows
      .map((r) => `(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM "${r.table_name}" t WHERE t.namespace = '${B}')`)
      .join(" || ':' || ")} AS digest`;
    // Let B's background work (the erasure, the task's first run) settle before its digest is taken.
    await new Promise((r) => setTimeout(r, 2_000));
  }, 240_000);

  afterAll(async () => {
    await stack.stop();
  });

  async function digestOfB(): Promise<string> {
    const { rows } = await stack.deps.pool.query<{ digest: string }>(snapshotSql);
    return rows[0].digest;
  }

  async function send(method: string, path: string, key: string, body?: unknown): Promise<Answer> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10_000);
    try {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      });
      if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        controller.abort();
        return { status: res.status, code: null, text: '' };
      }
      const text = await res.text();
      let code: string | null = null;
      try {
        code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null;
      } catch {
        // not JSON
      }
      return { status: res.status, code, text };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The B id a path parameter is filled with, by the parameter's name and route. */
  function bValues(route: CatalogRoute, param: string): string[] {
    if (param === 'user_id') return [B_USER];
    if (param === 'task_id') return [B_SESSION, ...(bIds.task ?? [])];
    if (param === 'namespace') return [B];
    const kind = ['memory', 'fact', 'entity', 'task', 'thread', 'erasure'].find((k) => route.path.startsWith(`/${k === 'memory' ? 'memories' : k === 'entity' ? 'entities' : `${k}s`}/`));
    return kind && bIds[kind]?.length ? bIds[kind] : bIds.all;
  }

  /** A value of the same shape that names nothing at all. */
  const absent = (value: string) => (/^[0-9a-f-]{36}$/.test(value) ? randomUUID() : `${value}-absent-${randomUUID().slice(0, 8)}`);

  /** Bodies that get past validation on the write routes, so the id or namespace check is what answers. */
  function bodyFor(route: CatalogRoute, namespace: string | undefined): unknown {
    const ns = namespace === undefined ? {} : { namespace };
    const bodies: Record<string, unknown> = {
      'POST /memories': { content: 'a note', ...ns },
      'POST /memories/batch': { memories: [{ content: 'a note', ...ns }] },
      'POST /search': { query: 'Zebulon Quarrington', ...ns },
      'POST /context': { query: 'Where does Zebulon work?', ...ns },
      'POST /facts': { ...ns, fact: { subject: 'Alma Lindqvist', predicate: 'likes', value: 'coffee' } },
      'PATCH /facts/:id': { fact_text: 'changed', reason: 'test' },
      'PATCH /memories/:id': { content: 'changed' },
      'POST /sessions/:task_id/turns': { role: 'user', content: 'hello', ...ns },
      'POST /tasks': { intent: 'x', schedule: { every: '24h' }, ...ns },
      'POST /tasks/:id/progress': { note: 'progress' },
      'POST /tasks/:id/budget': { error_budget: 2 },
      'POST /threads': { title: 't', participants: ['a'], ...ns },
      'POST /threads/:id/messages': { sender: 'user', content: 'hi', ...ns },
      'POST /dream/run': { ...ns },
      'PATCH /namespaces/:namespace': { timezone: 'Europe/Oslo' },
      'POST /reviews/:id/resolve': { keep_fact_id: bIds.fact?.[0] ?? randomUUID() },
    };
    return route.method === 'GET' ? undefined : (bodies[`${route.method} ${route.path}`] ?? (namespace === undefined ? {} : ns));
  }

  /**
   * B's ids that A has since used as names of its own: a session's or task's id is chosen by the client and scoped
   * to the namespace, so `POST /sessions/<an id of B>/turns` with A's key answers 2xx and creates A's own session
   * under that name (as it would under any other). A's later answers may then echo it (its audit trail, the
   * workflow id) without telling A anything of B: its own input, not B's data. B's content words stay markers.
   * From then on that path names A's resource, so it no longer answers as an absent id does (the twin check).
   */
  const namedByA = new Set<string>();

  function leaks(answer: Answer, request: string): string[] {
    return [...B_WORDS, ...bIds.all].filter((marker) => answer.text.includes(marker) && !request.includes(marker) && !namedByA.has(marker));
  }

  it('an explicit namespace=B is refused with 403 on every route that takes a namespace', async () => {
    const refused: string[] = [];
    for (const route of routes.filter((r) => pathParams(r.path).length === 0)) {
      for (const key of keysOfA) {
        const query = route.method === 'GET' || route.method === 'DELETE' ? `?namespace=${B}` : '';
        const answer = await send(route.method, `/v1${route.path}${query}`, key, bodyFor(route, B));
        // A route without a namespace parameter refuses the unknown field (400); one with it must answer 403.
        const global = GLOBAL_ROUTES.has(`${route.method} ${route.path}`);
        expect({ route: `${route.method} ${route.path}`, status: answer.status < 300 && !global ? answer.status : 'refused', leaks: leaks(answer, '') }).toEqual({
          route: `${route.method} ${route.path}`,
          status: 'refused',
          leaks: [],
        });
        if (answer.status === 403) refused.push(`${route.method} ${route.path}`);
      }
    }
    for (const known of ['GET /memories', 'POST /memories', 'POST /search', 'POST /context', 'GET /facts', 'GET /entities', 'GET /threads', 'POST /dream/run']) {
      expect(refused).toContain(known);
    }
  }, 120_000);

  it('property: any route, B ids in the path, namespace=B or not — no B data out, B unchanged, B ids answer as absent ones', async () => {
    const before = await digestOfB();
    const tally = { cases: 0, ok: 0, refused: 0, notFound: 0 };
    const arbitrary = fc.record({
      route: fc.constantFrom(...routes),
      key: fc.constantFrom(...keysOfA),
      pick: fc.nat(),
      namespaceB: fc.boolean(),
      userB: fc.boolean(),
    });
    const details = await fc.check(
      fc.asyncProperty(arbitrary, async ({ route, key, pick, namespaceB, userB }) => {
        const params = Object.fromEntries(pathParams(route.path).map((p) => [p, bValues(route, p)[pick % bValues(route, p).length]]));
        const query = new URLSearchParams({ ...(namespaceB ? { namespace: B } : {}), ...(userB && route.method === 'GET' ? { user_id: B_USER } : {}) }).toString();
        const path = `/v1${fillPath(route.path, params)}${query && (route.method === 'GET' || route.method === 'DELETE') ? `?${query}` : ''}`;
        const body = bodyFor(route, namespaceB ? B : undefined);
        const answer = await send(route.method, path, key, body);
        tally.cases++;
        // Named by A before this request: the path now names A's own resource, which an absent id does not.
        const ownName = Object.values(params).some((id) => namedByA.has(id));
        if (answer.status < 300) {
          tally.ok++;
          for (const id of Object.values(params)) namedByA.add(id);
        }
        else if (answer.status === 404) tally.notFound++;
        else tally.refused++;
        const label = `${route.method} ${path} ${JSON.stringify(body) ?? ''}`;
        if (answer.status >= 500) throw new Error(`${label} → ${answer.status} ${answer.text.slice(0, 300)}`);
        const leaked = leaks(answer, label);
        if (leaked.length) throw new Error(`${label} → ${answer.status} leaks ${leaked.join(', ')}: ${answer.text.slice(0, 500)} … ${leaked.map((m) => answer.text.slice(Math.max(0, answer.text.indexOf(m) - 400), answer.text.indexOf(m) + 100)).join(' … ')}`);
        if (namespaceB && answer.status < 300 && !GLOBAL_ROUTES.has(`${route.method} ${route.path}`) && (route.method === 'GET' || route.method === 'DELETE' || body !== undefined)) {
          throw new Error(`${label} → ${answer.status}: namespace=${B} was not refused`);
        }
        // B's ids answer exactly as ids that do not exist.
        if (Object.keys(params).length > 0 && !ownName) {
          const absentParams = Object.fromEntries(Object.entries(params).map(([p, v]) => [p, absent(v)]));
          const twinPath = path.replace(fillPath(route.path, params), fillPath(route.path, absentParams));
          const twin = await send(route.method, twinPath, key, body);
          if (twin.status !== answer.status || twin.code !== answer.code) {
            throw new Error(`${label} → ${answer.status} ${answer.code}, but with an id that does not exist → ${twin.status} ${twin.code}`);
          }
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    if (details.failed) {
      throw new Error(`failed after ${details.numRuns} runs (seed ${details.seed}): ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`);
    }
    console.log(`tenant-isolation: ${tally.cases} cases over ${routes.length} routes (2xx ${tally.ok}, 404 ${tally.notFound}, other refusals ${tally.refused})`);
    expect(await digestOfB()).toBe(before);
    // The run exercised answers of every kind, not only refusals.
    expect(tally.ok).toBeGreaterThan(0);
    expect(tally.notFound).toBeGreaterThan(0);
  }, 240_000);

  it("A's SSE stream never carries B's messages, and B's stream is a 404 to A", async () => {
    const [agentA] = keysOfA;
    const own = await send('POST', '/v1/threads', agentA, { title: 'alpha plan', participants: ['agent-a'] });
    expect(own.status).toBe(201);
    const ownId = (JSON.parse(own.text) as { id: string }).id;
    expect((await send('GET', `/v1/threads/${bIds.thread[0]}/stream`, agentA)).status).toBe(404);
    expect((await send('GET', `/v1/threads/${ownId}/stream?namespace=${B}`, agentA)).status).toBe(403);

    const controller = new AbortController();
    const res = await fetch(`${stack.baseUrl}/v1/threads/${ownId}/stream`, { headers: { authorization: `Bearer ${agentA}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    let received = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) received += decoder.decode(chunk);
      } catch {
        // aborted
      }
    })();
    await stack.request('POST', `/v1/threads/${bIds.thread[0]}/messages`, { sender: 'agent-b', content: 'bravo-secret streamed', namespace: B });
    await send('POST', `/v1/threads/${ownId}/messages`, agentA, { sender: 'agent-a', content: 'alpha streamed' });
    const deadline = Date.now() + 10_000;
    while (!received.includes('alpha streamed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await reading;
    expect(received).toContain('alpha streamed');
    expect(received).not.toContain('bravo-secret');
  }, 60_000);

  it('MCP tools acting with a key of A find nothing of B', async () => {
    const [agentA] = keysOfA;
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = await fetch(`${stack.baseUrl}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agentA}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      });
      return { status: res.status, text: await res.text() };
    };
    const list = await fetch(`${stack.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentA}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const tools = ((JSON.parse(await list.text()) as { result: { tools: Array<{ name: string; inputSchema: { properties?: Record<string, unknown> } }> } }).result.tools);
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      const props = Object.keys(tool.inputSchema.properties ?? {});
      const args: Record<string, unknown> = {};
      for (const p of props) {
        // Search terms name B; anything A's tools would store names only A.
        if (/query|subject|name/.test(p)) args[p] = 'Zebulon Quarrington';
        else if (/content|text/.test(p)) args[p] = 'an alpha note';
        else if (/namespace/.test(p)) args[p] = B;
        else if (/user/.test(p)) args[p] = B_USER;
        else if (/id$/.test(p)) args[p] = bIds.memory[0];
      }
      for (const withNamespace of [true, false]) {
        const used = withNamespace ? args : Object.fromEntries(Object.entries(args).filter(([k]) => !/namespace/.test(k)));
        const answer = await call(tool.name, used);
        expect(answer.status).toBeLessThan(500);
        const leaked = [...B_WORDS, ...bIds.all].filter((m) => answer.text.includes(m) && !JSON.stringify(used).includes(m));
        expect({ tool: tool.name, leaked }).toEqual({ tool: tool.name, leaked: [] });
      }
    }
  }, 60_000);
});
