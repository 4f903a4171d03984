import fc from 'fast-check';
import { v1Routes } from '../api/routes/v1.js';
import { createApiKey } from '../core/auth/apiKeys.js';
import { EMBEDDED_DATABASE } from './support/env.js';
import { fillPath, listRoutes, pathParams, type CatalogRoute } from './support/routeCatalog.js';
import { ADMIN_KEY, startTestStack, type TestStack } from './support/stack.js';

/**
 * Property-based bad input over every `/v1` route (found by walking the
 * router, so new routes are covered without editing this file) and `/mcp`:
 * wrong shapes, huge strings, deep nesting, lone surrogates, NUL bytes, SQL
 * and tsquery metacharacters, extreme numbers and dates, unknown fields, in
 * the body, the query string and the path. Every answer is < 500 (a 503 with
 * Retry-After, the documented "busy", is sent again after the wait) and every
 * 4xx has the error shape; a refused write changes no row; the server keeps
 * serving. Prints the cases run per route.
 */

// Bounded run time: 15-35 s in either mode (PGlite answers more slowly). FUZZ_RUNS_PER_ROUTE=500 for a long run.
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS_PER_ROUTE) || (EMBEDDED_DATABASE ? 24 : 32);

const META = ["'", ';', '--', '&', '|', '!', ':*', '(', ')', '\\', "' OR '1'='1", "'; DROP TABLE episode; --", 'a & b | !c', 'foo:* & (bar | !baz)', '\\x00', '%', '_', '$1', '"'];
const WEIRD = ['\u0000', 'a\u0000b', '\uD800', 'x\uDFFFy', '\uDBFF\uDFFF', '\uFEFF', '\u202E', '🙂', '\r\n', ' ', '', 'null', 'undefined', '__proto__', 'constructor'];
const DATES = [
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-01-01T00:00:00+25:00',
  '2026-01-01T00:00:00.123456789Z',
  '1969-12-31T23:59:59.999Z',
  '2026-01-01',
  'yesterday',
];
const NUMBERS = [0, -1, 1, 0.5, -0.0, 1e308, -1e308, 5e-324, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, -(2 ** 63), 1e21];

/** A string made of metacharacters, odd code units and arbitrary text. */
const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...META, ...WEIRD, ...DATES),
  fc.array(fc.oneof(fc.constantFrom(...META, ...WEIRD), fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ maxLength: 6 })), { maxLength: 8 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** Deeply nested arrays or objects (JSON.parse copes; does everything after it?). */
function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { k: value };
  return value;
}

const hugeString = fc.constantFrom(100_001, 250_000).map((n) => 'ü'.repeat(n / 2));

/** Any JSON value, biased towards the nasty ones. */
const nastyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    fc.constantFrom(...NUMBERS),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(nested(600, 'array'), nested(600, 'object'), nested(5, 'array')),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(nastyString, fc.constantFrom('namespace', 'content', 'limit', 'id')), tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** Valid bodies per route, so mutations reach past the first check; routes not listed start from `{}`. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  'POST /memories': { content: 'Ada works at Orbital.', namespace: 'fuzz', user_id: 'ada', speaker: 'Ada', source: 'cli', occurred_at: '2026-01-01T00:00:00Z', metadata: { a: 1 } },
  'POST /memories/batch': { memories: [{ content: 'Ada likes tea.', namespace: 'fuzz', metadata: { k: 'v' } }] },
  'PATCH /memories/:id': { content: 'Ada works at Nimbus.', metadata: { b: 2 } },
  'POST /search': { query: 'Ada tea', namespace: 'fuzz', k: 5 },
  'POST /context': { query: 'Ada', namespace: 'fuzz', max_tokens: 200 },
  'POST /facts': { namespace: 'fuzz', user_id: 'ada', source: 'fuzz', fact: { subject: 'Ada', predicate: 'likes', object: 'Tea', value: undefined } },
  'PATCH /facts/:id': { fact_text: 'Ada likes coffee.', reason: 'corrected' },
  'POST /sessions/:task_id/turns': { role: 'user', content: 'hello there', namespace: 'fuzz', user_id: 'ada', ttl_seconds: 60 },
  'POST /tasks': { intent: 'write a report', schedule: { every: '15m' }, namespace: 'fuzz', user_id: 'ada' },
  'POST /tasks/:id/progress': { note: 'half way', percent: 50 },
  'POST /tasks/:id/budget': { error_budget: 2 },
  'POST /threads': { title: 'plan', participants: ['agent-a', 'agent-b'], namespace: 'fuzz' },
  'POST /threads/:id/messages': { sender: 'agent-a', content: 'hello', namespace: 'fuzz' },
  'PATCH /namespaces/:namespace': { timezone: 'Europe/Oslo' },
  'POST /dream/run': { namespace: 'fuzz' },
  'POST /reviews/:id/resolve': { keep_fact_id: '00000000-0000-4000-8000-000000000000', note: 'keep' },
};

function sampleBody(route: CatalogRoute): Record<string, unknown> {
  return structuredClone(SAMPLES[`${route.method} ${route.path}`] ?? {});
}

/** Paths to every string, number and boolean leaf of a sample body. */
function leafPaths(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((v, i) => leafPaths(v, [...path, i]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...path, k]));
  return path.length ? [path] : [];
}

function replaceAt(value: unknown, path: Array<string | number>, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  const [head, ...rest] = path;
  copy[head] = replaceAt(copy[head], rest, leaf);
  return copy;
}

interface Case {
  key: string;
  params: Record<string, string>;
  query: Array<[string, string]>;
  body: unknown;
  rawBody?: string;
}

/** A case for `route`: valid-looking parts with some of them replaced by nasty values. */
function caseFor(route: CatalogRoute, ids: string[], keys: string[]): fc.Arbitrary<Case> {
  const params = pathParams(route.path);
  const paramValue = fc.oneof(fc.constantFrom(...ids), fc.constantFrom(...ids), nastyString, fc.constantFrom('fuzz', 'default', '..', '%2e%2e', 'a'.repeat(5000)));
  const query = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom('namespace', 'limit', 'cursor', 'q', 'query', 'user_id', 'after', 'before', 'at', 'as_of', 'status', 'expand', 'namespace[$ne]', 'limit[]', 'include_forgotten'), nastyString),
      fc.oneof(nastyString, fc.constantFrom(...NUMBERS.map(String), 'NaN', 'Infinity', '-0', '1e999')),
    ),
    { maxLength: 4 },
  );
  const sample = sampleBody(route);
  const leaves = leafPaths(sample);
  const stringLeaves = leaves.filter((path) => typeof path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], sample) === 'string');
  const body: fc.Arbitrary<unknown> = fc.oneof(
    // A valid body with one string replaced by SQL / tsquery metacharacters (still valid text): they must reach the queries harmlessly.
    ...(stringLeaves.length
      ? [fc.tuple(fc.constantFrom(...stringLeaves), fc.array(fc.constantFrom(...META, 'Ada', ' '), { minLength: 1, maxLength: 6 })).map(([path, parts]) => replaceAt(sample, path, parts.join('')))]
      : []),
    // A valid body with one leaf (a string, number or flag) replaced: metacharacters reach the queries.
    ...(leaves.length ? [fc.tuple(fc.constantFrom(...leaves), fc.oneof(nastyString, nastyString, nastyValue)).map(([path, leaf]) => replaceAt(sample, path, leaf))] : []),
    // A valid body with one field replaced, or an unknown field added.
    fc.tuple(fc.constant(sample), fc.oneof(nastyString, fc.constantFrom('namespace', 'content', 'query', 'limit', 'memories', 'metadata', 'occurred_at')), nastyValue).map(([sample, field, value]) => ({ ...sample, [field]: value })),
    // Wrong shapes altogether.
    nastyValue,
    // A huge string in one field.
    leaves.length ? fc.tuple(fc.constantFrom(...leaves), hugeString).map(([path, huge]) => replaceAt(sample, path, huge)) : hugeString.map((huge) => ({ content: huge })),
  );
  // Mostly none (the JSON of `body` is sent); sometimes a body that is not JSON, or too large.
  const rawBody = fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 7 },
    { arbitrary: fc.constantFrom('{"content": "unterminated', '{"a":1}{"b":2}', '[1,2,', '\u0000', '{"content":"\\ud800"}', '{"__proto__":{"admin":true}}', 'x'.repeat(1_100_000)), weight: 1 },
  );
  return fc.record({
    key: fc.constantFrom(...keys),
    params: fc.tuple(...params.map(() => paramValue)).map((values) => Object.fromEntries(params.map((p, i) => [p, values[i]]))),
    query,
    body,
    rawBody,
  });
}

/** Always run first: a NUL and an unpaired surrogate in each field of the valid body, and in a key of every object. */
function knownNasty(route: CatalogRoute, id: string): Array<[Case]> {
  const sample = sampleBody(route);
  const params = Object.fromEntries(pathParams(route.path).map((p) => [p, id]));
  const base = { key: ADMIN_KEY, params, query: [] as Array<[string, string]>, rawBody: undefined };
  const bodies = leafPaths(sample).flatMap((path) => ['a\u0000b', 'x\uD800y'].map((bad) => replaceAt(sample, path, bad)));
  if (Object.keys(sample).length > 0) bodies.push({ ...sample, metadata: { 'k\u0000': 1, '\uDC00': 'v' } });
  return bodies.map((body) => [{ ...base, body }]);
}

interface ErrorShape {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

describe('fuzzed bad input over every /v1 route', () => {
  let stack: TestStack;
  let routes: CatalogRoute[];
  let countSql: string;
  const ids: string[] = [];
  const keys: string[] = [ADMIN_KEY];
  const tally: Tally[] = [];

  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false });
    routes = listRoutes(v1Routes(stack.deps));
    keys.push((await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'fuzz' })).key);
    keys.push((await createApiKey(stack.deps.pool, { role: 'operator', namespace: 'fuzz' })).key);
    const written = await stack.request<{ id: string }>('POST', '/v1/memories', { content: 'Ada works at Orbital.', namespace: 'fuzz' });
    ids.push(written.body.id, '00000000-0000-4000-8000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'fuzz', 'ada', 'sess-1');
    // Real rows of other kinds, so fuzzed path ids also reach the code past "not found".
    const created = await Promise.all([
      stack.request<{ id?: string; fact_id?: string }>('POST', '/v1/facts', SAMPLES['POST /facts']),
      stack.request<{ id?: string }>('POST', '/v1/tasks', SAMPLES['POST /tasks']),
      stack.request<{ id?: string }>('POST', '/v1/threads', SAMPLES['POST /threads']),
      stack.request('POST', '/v1/sessions/sess-1/turns', SAMPLES['POST /sessions/:task_id/turns']),
    ]);
    for (const res of created) {
      const body = res.body as { id?: unknown; fact?: { id?: unknown } } | null;
      for (const id of [body?.id, body?.fact?.id]) if (typeof id === 'string') ids.push(id);
    }
    // Every table but the registry of namespaces (a refused write may name a new namespace: that row is not data).
    const { rows } = await stack.deps.pool.query<{ tablename: string }>(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('namespace', '_prisma_migrations') ORDER BY tablename`,
    );
    countSql = `SELECT ${rows.map((r) => `(SELECT count(*) FROM "${r.tablename}")`).join(' + ')} AS n`;
  });

  afterAll(async () => {
    console.log(`fuzz-routes: cases per route (${tally.reduce((n, t) => n + t.cases, 0)} in all)\n${formatTable(tally)}`);
    await stack.stop();
  });

  async function rowCount(): Promise<number> {
    const { rows } = await stack.deps.pool.query<{ n: number }>(countSql);
    return Number(rows[0].n);
  }

  interface Answer {
    status: number;
    body: unknown;
    type: string;
    retryAfter: string | null;
  }

  async function send(method: string, url: string, key: string, body: string | undefined): Promise<Answer> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 15_000);
    try {
      const res = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body,
        signal: controller.signal,
      });
      const type = res.headers.get('content-type') ?? '';
      const retryAfter = res.headers.get('retry-after');
      // A stream (SSE) that opened is an answer; do not wait for it to end.
      if (type.startsWith('text/event-stream')) {
        controller.abort();
        return { status: res.status, body: null, type, retryAfter };
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: checked below
      }
      return { status: res.status, body: parsed, type, retryAfter };
    } finally {
      clearTimeout(timer);
    }
  }

  function expectWellFormed(label: string, answer: Answer): void {
    if (answer.status >= 500) throw new Error(`${label} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
    if (answer.status >= 400) {
      const error = (answer.body as ErrorShape | null)?.error;
      if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || !('details' in error)) {
        throw new Error(`${label} → ${answer.status} without the error shape: ${JSON.stringify(answer.body).slice(0, 300)}`);
      }
    }
  }

  it('finds the routes (the catalog is not empty and includes the known ones)', () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    for (const known of ['POST /memories', 'POST /memories/batch', 'GET /memories/:id', 'POST /search', 'POST /context', 'GET /facts', 'GET /entities/:id', 'DELETE /users/:user_id']) {
      expect(names).toContain(known);
    }
    expect(routes.length).toBeGreaterThan(40);
  });

  it('the sample bodies the mutations start from are valid (so mutations reach past the first check)', async () => {
    for (const route of ['POST /memories', 'POST /memories/batch', 'POST /search', 'POST /context', 'POST /facts', 'POST /tasks', 'POST /threads', 'POST /sessions/:task_id/turns']) {
      const [method, path] = route.split(' ');
      const res = await stack.request(method, `/v1${path.replace(':task_id', 'sess-2')}`, SAMPLES[route]);
      expect({ route, status: res.status, body: res.status < 300 ? null : res.body }).toEqual({ route, status: res.status < 300 ? res.status : 200, body: null });
    }
  });

  it('text PostgreSQL cannot take is a 400 naming the field (the fix for the 500s this suite found)', async () => {
    type Body = { error: { code: string; details: Array<{ field: string; message: string }> } };
    const nul = await stack.request<Body>('POST', '/v1/tasks', { ...SAMPLES['POST /tasks'], intent: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(nul.body.error.details).toEqual([{ field: 'intent', message: 'must not contain NUL characters', code: 'custom' }]);
    const surrogate = await stack.request<Body>('POST', '/v1/memories', { ...SAMPLES['POST /memories'], metadata: { note: 'x\uD800' } });
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.error.details[0].field).toBe('metadata.note');
    const key = await stack.request<Body>('POST', '/v1/memories', { ...SAMPLES['POST /memories'], metadata: { 'k\u0000': 1 } });
    expect(key.body.error.details[0]).toMatchObject({ field: 'metadata.k\u0000', message: 'key must not contain NUL characters' });
    const deep = await stack.request<Body>('POST', '/v1/memories', { ...SAMPLES['POST /memories'], metadata: nested(100, 'object') });
    expect(deep.status).toBe(400);
    expect(deep.body.error.details[0].message).toContain('nested more than 64 levels');
    // A read's search text may hold a NUL: the read path drops it.
    expect((await stack.request('POST', '/v1/search', { ...SAMPLES['POST /search'], query: 'Ada\u0000tea' })).status).toBe(200);
    expect((await stack.request('GET', '/v1/context?namespace=fuzz&query=Ada%00tea')).status).toBe(200);
    // Any other query-string value is a name, an id or a filter: a NUL there is refused, naming it (GET /v1/entities?q= answered 500).
    for (const [path, field] of [
      ['/v1/entities?namespace=fuzz&q=a%00b', 'query.q'],
      ['/v1/audit?namespace=fuzz&actor=%00', 'query.actor'],
      ['/v1/facts?namespace=fuzz&subject=Ada%00', 'query.subject'],
    ]) {
      const refused = await stack.request<Body>('GET', path);
      expect({ path, status: refused.status, detail: refused.body.error?.details[0] }).toEqual({ path, status: 400, detail: { field, message: 'must not contain NUL characters', code: 'custom' } });
    }
  });

  it('an instant PostgreSQL cannot store (year 0, or pushed past 0001 or 9999 by its offset) is a 400 naming the field', async () => {
    type Body = { error: { details: Array<{ field: string; message: string }> } };
    const message = 'must fall between 0001-01-01 and 9999-12-31 (UTC)';
    for (const instant of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+14:00', '9999-12-31T23:59:59-12:00']) {
      const cases: Array<[string, string, unknown, string]> = [
        ['POST', '/v1/memories', { ...SAMPLES['POST /memories'], occurred_at: instant }, 'occurred_at'],
        ['POST', '/v1/facts', { ...SAMPLES['POST /facts'], fact: { subject: 'Ada', predicate: 'likes', object: 'Tea', valid_from: instant } }, 'fact.valid_from'],
        ['GET', `/v1/facts?namespace=fuzz&as_of=${encodeURIComponent(instant)}`, undefined, 'as_of'],
        ['POST', '/v1/search', { ...SAMPLES['POST /search'], as_of: instant }, 'as_of'],
      ];
      for (const [method, path, body, field] of cases) {
        const res = await stack.request<Body>(method, path, body);
        expect({ instant, path, status: res.status, detail: res.body.error?.details[0] }).toEqual({ instant, path, status: 400, detail: expect.objectContaining({ field, message }) });
      }
    }
    // The ends themselves are fine.
    for (const instant of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z']) {
      expect((await stack.request('POST', '/v1/memories', { ...SAMPLES['POST /memories'], occurred_at: instant })).status).toBe(202);
    }
  });

  it('every /v1 route answers bad input with a 4xx in the error shape, never a 5xx, and writes nothing when refusing', async () => {
    const started = Date.now();
    for (const route of routes) {
      const counts: Tally = { route: `${route.method} /v1${route.path}`, cases: 0, '2xx': 0, '4xx': 0, retried: 0 };
      const writes = route.method !== 'GET';
      await assertProperty(
        fc.asyncProperty(caseFor(route, ids, keys), async (c) => {
          const search = new URLSearchParams(c.query).toString();
          const url = `${stack.baseUrl}/v1${fillPath(route.path, c.params)}${search ? `?${search}` : ''}`;
          const body = route.method === 'GET' ? undefined : (c.rawBody ?? JSON.stringify(c.body));
          const before = writes ? await rowCount() : 0;
          let answer = await send(route.method, url, c.key, body);
          // 503 with Retry-After is the documented "busy, nothing done, try later" (Temporal slow to take a start or
          // a signal while the rest of a CI pass loads its server): the case is sent again after the wait, at most
          // twice, so a refusal that bad input causes (it comes back every time) still fails below.
          for (let retry = 0; retry < 2 && answer.status === 503 && answer.retryAfter !== null; retry++) {
            counts.retried++;
            await new Promise((resolve) => setTimeout(resolve, Number(answer.retryAfter) * 1000));
            answer = await send(route.method, url, c.key, body);
          }
          counts.cases++;
          const label = `${route.method} ${url.slice(0, 300)} body=${(body ?? '').slice(0, 300)}`;
          expectWellFormed(label, answer);
          if (answer.status < 300) counts['2xx']++;
          else counts['4xx']++;
          if (writes && answer.status >= 400) {
            const after = await rowCount();
            if (after !== before) throw new Error(`${label} → ${answer.status} but rows changed (${before} → ${after})`);
          }
        }),
        { numRuns: RUNS_PER_ROUTE, endOnFailure: true, examples: knownNasty(route, ids[0]) },
      );
      tally.push(counts);
      // The server keeps serving between batches.
      const health = await fetch(`${stack.baseUrl}/healthz`);
      expect(health.status).toBe(200);
    }
    console.log(`fuzz-routes: ${routes.length} routes in ${Math.round((Date.now() - started) / 1000)} s`);
  }, 240_000);

  it('/mcp answers bad JSON-RPC without a 5xx', async () => {
    const counts: Tally = { route: 'POST /mcp', cases: 0, '2xx': 0, '4xx': 0, retried: 0 };
    const message = fc.oneof(
      nastyValue,
      fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), nastyString), method: fc.constantFrom('tools/call', 'tools/list', 'initialize', 'x'), params: nastyValue }),
      fc.record({
        jsonrpc: fc.constant('2.0'),
        id: fc.integer(),
        method: fc.constant('tools/call'),
        params: fc.record({ name: fc.oneof(fc.constantFrom('remember', 'search_memory', 'get_context', 'get_facts', 'forget'), nastyString), arguments: fc.dictionary(fc.constantFrom('content', 'query', 'namespace', 'id', 'limit'), nastyValue, { maxKeys: 3 }) }),
      }),
    );
    await assertProperty(
      fc.asyncProperty(message, fc.constantFrom(...keys), async (body, key) => {
        const res = await fetch(`${stack.baseUrl}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        counts.cases++;
        if (res.status < 300) counts['2xx']++;
        else counts['4xx']++;
        if (res.status >= 500) throw new Error(`POST /mcp ${JSON.stringify(body).slice(0, 300)} → ${res.status} ${text.slice(0, 300)}`);
      }),
      { numRuns: RUNS_PER_ROUTE * 2, endOnFailure: true },
    );
    tally.push(counts);
    expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
  }, 120_000);
});

/** fc.assert, but a failure reports the request (bounded) rather than a counterexample of megabytes. */
async function assertProperty<T>(property: fc.IAsyncProperty<T>, params: fc.Parameters<T>): Promise<void> {
  const details = await fc.check(property, params);
  if (details.failed) {
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}"): ${cause.slice(0, 2000)}`);
  }
}

/** Cases run against one route, by answer; `retried` counts 503s sent again after their Retry-After. */
interface Tally {
  route: string;
  cases: number;
  '2xx': number;
  '4xx': number;
  retried: number;
}

function formatTable(rows: Tally[]): string {
  const width = Math.max(5, ...rows.map((r) => r.route.length));
  const lines = [`${'route'.padEnd(width)}  cases   2xx   4xx  retried`];
  for (const r of rows) {
    lines.push(`${r.route.padEnd(width)}  ${String(r.cases).padStart(5)} ${String(r['2xx']).padStart(5)} ${String(r['4xx']).padStart(5)} ${String(r.retried).padStart(8)}`);
  }
  return lines.join('\n');
}
