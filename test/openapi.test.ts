import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createApp } from '../api/app.js';
import { buildOpenApiDocument, type OpenApiDocument } from '../api/openapi/document.js';
import { servedRoutes } from '../api/openapi/servedRoutes.js';
import { ADMIN_KEY, startTestStack, type TestStack } from './support/stack.js';

/** Served paths that are not part of the JSON API the document describes, each with the reason. */
const NOT_DOCUMENTED: Array<{ path: RegExp; reason: string }> = [
  { path: /^\/docs(\/.*)?$/, reason: 'the HTML reference itself and its static assets' },
  { path: /^\/mcp$/, reason: 'MCP streamable-HTTP transport (JSON-RPC), described by its own tools/list' },
  { path: /^\/metrics$/, reason: 'Prometheus text exposition' },
  { path: /^\/kg(\/.*)?$/, reason: 'the knowledge-graph browser (HTML and its session endpoints)' },
];

const documentedRoutes = (doc: OpenApiDocument): string[] =>
  Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item as object)
      .filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );

describe('OpenAPI document and /docs', () => {
  let stack: TestStack;
  let doc: OpenApiDocument;
  let ajv: Ajv2020;

  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false });
    const res = await fetch(`${stack.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as OpenApiDocument;
    // The document as a schema store: each response schema is validated by its JSON pointer, $refs resolve inside it.
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(doc as object, 'openapi');
  });
  afterAll(async () => {
    await stack.stop();
  });

  /** Validates a real response body against the schema the document gives for that route and status. */
  function expectDocumented(method: string, template: string, status: number, body: unknown): void {
    const responses = (doc.paths?.[template] as Record<string, { responses: Record<string, unknown> }> | undefined)?.[method.toLowerCase()]?.responses;
    expect(responses?.[String(status)]).toBeDefined();
    const pointer = ['paths', template, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema']
      .map((p) => encodeURIComponent(p.replaceAll('~', '~0').replaceAll('/', '~1')))
      .join('/');
    const validate = ajv.getSchema(`openapi#/${pointer}`);
    expect(validate).toBeDefined();
    const ok = validate!(body);
    if (!ok) throw new Error(`${method} ${template} ${status} does not match its documented schema: ${JSON.stringify(validate!.errors)}\n${JSON.stringify(body)}`);
  }

  it('is served without auth, is a valid OpenAPI 3.1 document and matches the one built in-process', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    if (!result.valid) throw new Error(JSON.stringify(result.errors, null, 2));
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components?.securitySchemes?.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(JSON.parse(JSON.stringify(buildOpenApiDocument()))).toEqual(doc);
  });

  it('documents every route the router serves, and no route it does not', () => {
    const served = servedRoutes(createApp(stack.deps))
      .filter((r) => !NOT_DOCUMENTED.some((x) => x.path.test(r.path)))
      .map((r) => `${r.method.toUpperCase()} ${r.path}`);
    const documented = documentedRoutes(doc);
    // Sanity: the walk found the nested /v1 routers.
    expect(served).toEqual(expect.arrayContaining(['POST /v1/memories', 'GET /v1/entities/{id}/neighborhood', 'GET /healthz']));
    expect([...new Set(served)].sort()).toEqual([...new Set(documented)].sort());
  });

  it('gives every /v1 operation the bearer scheme, the error shape for 401, and a 400 where it validates input', () => {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries(item as Record<string, { security?: unknown; responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>; requestBody?: unknown; parameters?: Array<{ in: string }> }>)) {
        expect(op.security).toEqual([{ bearer: [] }]);
        expect(op.responses['401']?.content?.['application/json']?.schema?.$ref).toBe('#/components/schemas/Error');
        if (op.requestBody || op.parameters?.some((p) => p.in === 'query')) expect({ route: `${method} ${path}`, has400: '400' in op.responses }).toEqual({ route: `${method} ${path}`, has400: true });
      }
    }
  });

  it("every component's example satisfies its own schema", () => {
    const schemas = doc.components?.schemas ?? {};
    let examples = 0;
    for (const [name, schema] of Object.entries(schemas)) {
      const example = (schema as { example?: unknown }).example;
      if (example === undefined) continue;
      examples++;
      const validate = ajv.getSchema(`openapi#/components/schemas/${name}`)!;
      if (!validate(example)) throw new Error(`example of ${name}: ${JSON.stringify(validate.errors)}`);
    }
    expect(examples).toBeGreaterThanOrEqual(8);
  });

  it('real responses match their documented schemas', async () => {
    const written = await stack.request<{ id: string }>('POST', '/v1/memories', { content: 'Nadia works at Orbital.', namespace: 'oa', user_id: 'nadia' });
    expect(written.status).toBe(202);
    expectDocumented('POST', '/v1/memories', 202, written.body);

    const batch = await stack.request('POST', '/v1/memories/batch', { memories: [{ content: 'One.', namespace: 'oa' }, { content: 'Two.', namespace: 'oa' }] });
    expect(batch.status).toBe(202);
    expectDocumented('POST', '/v1/memories/batch', 202, batch.body);

    const one = await stack.request('GET', `/v1/memories/${written.body.id}`);
    expect(one.status).toBe(200);
    expectDocumented('GET', '/v1/memories/{id}', 200, one.body);
    const expanded = await stack.request('GET', `/v1/memories/${written.body.id}?expand=facts`);
    expectDocumented('GET', '/v1/memories/{id}', 200, expanded.body);

    const page = await stack.request('GET', '/v1/memories?namespace=oa&limit=1');
    expect(page.status).toBe(200);
    expectDocumented('GET', '/v1/memories', 200, page.body);

    const facts = await stack.request('GET', '/v1/facts?namespace=oa');
    expect(facts.status).toBe(200);
    expectDocumented('GET', '/v1/facts', 200, facts.body);

    const explicit = await stack.request('POST', '/v1/facts', { namespace: 'oa', fact: { subject: 'Nadia', predicate: 'works_at', object: 'Orbital' } });
    expect(explicit.status).toBe(202);
    expectDocumented('POST', '/v1/facts', 202, explicit.body);

    const search = await stack.request('POST', '/v1/search', { query: 'Orbital', namespace: 'oa' });
    expect(search.status).toBe(200);
    expectDocumented('POST', '/v1/search', 200, search.body);

    const context = await stack.request('GET', '/v1/context?namespace=oa&query=Orbital');
    expect(context.status).toBe(200);
    expectDocumented('GET', '/v1/context', 200, context.body);

    const turn = await stack.request('POST', '/v1/sessions/t-1/turns', { role: 'tool', content: 'ran', tool_result: { ok: [1, 'two', null] }, namespace: 'oa' });
    expect(turn.status).toBe(202);
    expectDocumented('POST', '/v1/sessions/{task_id}/turns', 202, turn.body);
    const session = await stack.request('GET', '/v1/sessions/t-1?namespace=oa');
    expect(session.status).toBe(200);
    expectDocumented('GET', '/v1/sessions/{task_id}', 200, session.body);

    const ns = await stack.request('PATCH', '/v1/namespaces/oa', { timezone: 'Europe/Oslo' });
    expect(ns.status).toBe(200);
    expectDocumented('PATCH', '/v1/namespaces/{namespace}', 200, ns.body);

    const forgotten = await stack.request('POST', `/v1/memories/${written.body.id}/forget`);
    expect(forgotten.status).toBe(200);
    expectDocumented('POST', '/v1/memories/{id}/forget', 200, forgotten.body);

    const audit = await stack.request('GET', '/v1/audit?namespace=oa');
    expect(audit.status).toBe(200);
    expectDocumented('GET', '/v1/audit', 200, audit.body);

    const entities = await stack.request('GET', '/v1/entities?namespace=oa');
    expectDocumented('GET', '/v1/entities', 200, entities.body);
    const profile = await stack.request('GET', '/v1/users/nadia/profile?namespace=oa');
    expectDocumented('GET', '/v1/users/{user_id}/profile', 200, profile.body);
    const exported = await stack.request('GET', '/v1/users/nadia/export?namespace=oa');
    expectDocumented('GET', '/v1/users/{user_id}/export', 200, exported.body);
    const reviews = await stack.request('GET', '/v1/reviews?namespace=oa');
    expectDocumented('GET', '/v1/reviews', 200, reviews.body);
    const tasks = await stack.request('GET', '/v1/tasks?namespace=oa');
    expectDocumented('GET', '/v1/tasks', 200, tasks.body);
    const dreams = await stack.request('GET', '/v1/dream/runs');
    expectDocumented('GET', '/v1/dream/runs', 200, dreams.body);
    const stages = await stack.request('GET', `/v1/memories/${written.body.id}/stages`);
    expectDocumented('GET', '/v1/memories/{id}/stages', 200, stages.body);

    const health = await fetch(`${stack.baseUrl}/healthz`);
    expectDocumented('GET', '/healthz', 200, await health.json());
  });

  it('routes added alongside (threads, keys, ontology, memory versions) answer as documented', async () => {
    const thread = await stack.request<{ id: string }>('POST', '/v1/threads', { title: 'Plan', participants: ['planner', 'booker'], namespace: 'oa' });
    expect(thread.status).toBe(201);
    expectDocumented('POST', '/v1/threads', 201, thread.body);
    const message = await stack.request('POST', `/v1/threads/${thread.body.id}/messages`, { sender: 'planner', content: 'hello', namespace: 'oa' });
    expect(message.status).toBe(201);
    expectDocumented('POST', '/v1/threads/{id}/messages', 201, message.body);
    expectDocumented('GET', '/v1/threads/{id}', 200, (await stack.request('GET', `/v1/threads/${thread.body.id}?namespace=oa`)).body);
    expectDocumented('GET', '/v1/threads', 200, (await stack.request('GET', '/v1/threads?namespace=oa&participant=booker&waiting=true')).body);

    const key = await stack.request<{ id: string }>('POST', '/v1/keys', { namespace: 'oa', role: 'agent', label: 'doc test' });
    expect(key.status).toBe(201);
    expectDocumented('POST', '/v1/keys', 201, key.body);
    expectDocumented('GET', '/v1/keys', 200, (await stack.request('GET', '/v1/keys?namespace=oa')).body);
    const revoked = await stack.request('DELETE', `/v1/keys/${key.body.id}`);
    expect(revoked.status).toBe(200);
    expectDocumented('DELETE', '/v1/keys/{id}', 200, revoked.body);

    const ontology = await stack.request('GET', '/v1/ontology');
    expect(ontology.status).toBe(200);
    expectDocumented('GET', '/v1/ontology', 200, ontology.body);

    const memory = await stack.request<{ id: string }>('POST', '/v1/memories', { content: 'Versioned note.', namespace: 'oa', skip_extraction: true });
    const patched = await stack.request('PATCH', `/v1/memories/${memory.body.id}`, { metadata: { tag: 'x' } });
    expect(patched.status).toBe(200);
    expectDocumented('PATCH', '/v1/memories/{id}', 200, patched.body);
    const history = await stack.request('GET', `/v1/memories/${memory.body.id}/history`);
    expect(history.status).toBe(200);
    expectDocumented('GET', '/v1/memories/{id}/history', 200, history.body);
  });

  it('error answers match the documented error shape', async () => {
    const bad = await stack.request('POST', '/v1/memories', { content: '', colour: 'red' });
    expect(bad.status).toBe(400);
    expectDocumented('POST', '/v1/memories', 400, bad.body);

    const missing = await stack.request('GET', '/v1/memories/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expectDocumented('GET', '/v1/memories/{id}', 404, missing.body);

    const noKey = await fetch(`${stack.baseUrl}/v1/facts`);
    expect(noKey.status).toBe(401);
    expectDocumented('GET', '/v1/facts', 401, await noKey.json());

    const notJson = await fetch(`${stack.baseUrl}/v1/memories`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'text/plain' }, body: 'hi' });
    expect(notJson.status).toBe(415);
    expectDocumented('POST', '/v1/memories', 415, await notJson.json());
  });

  it('/docs serves the interactive reference from the local swagger-ui-dist, pointed at /openapi.json', async () => {
    const page = await fetch(`${stack.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('/docs/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);

    const bundle = await fetch(`${stack.baseUrl}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);

    const css = await fetch(`${stack.baseUrl}/docs/swagger-ui.css`);
    expect(css.status).toBe(200);

    // The package's own demo page (which loads the public petstore) is not served.
    expect((await fetch(`${stack.baseUrl}/docs/index.html`)).status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/docs/swagger-initializer.js`)).status).toBe(404);

    const init = await fetch(`${stack.baseUrl}/docs/init.js`);
    expect(await init.text()).toContain("url: '/openapi.json'");
  });
});
