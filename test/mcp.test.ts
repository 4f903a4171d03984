import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApiKey } from '../core/auth/apiKeys.js';
import { loadMcpConfig } from '../mcp/config.js';
import { TOOL_NAMES } from '../mcp/tools.js';
import { ROOT } from './support/paths.js';
import { eventually } from './support/eventually.js';
import { startTestStack, waitForStatus, type TestStack } from './support/stack.js';

interface ApiError {
  error: { code: string; message: string; details: Array<{ field: string; message: string }> | null };
}
interface Fact {
  id: string;
  predicate: string;
  fact_text: string;
  subject: { id: string; name: string };
}
interface SearchHit {
  type: string;
  id: string;
  snippet: string;
  episode_ids: string[];
}
interface EntityMemory {
  entity: { id: string; name: string };
  facts: Fact[];
  other_matches?: unknown[];
}

/** The scoping fields each tool shares with its HTTP route. */
const SCOPING: Record<(typeof TOOL_NAMES)[number], string[]> = {
  remember: ['namespace', 'user_id', 'agent_id', 'run_id'],
  search_memory: ['namespace', 'user_id', 'agent_id', 'run_id'],
  get_context: ['namespace', 'user_id', 'agent_id', 'run_id'],
  get_facts: ['namespace', 'user_id'],
  get_entity: ['namespace', 'user_id'],
  forget: [],
  add_session_turn: ['namespace', 'user_id', 'agent_id'],
  get_session: ['namespace'],
};

type TransportKind = 'stdio' | 'http';

describe('MCP server', () => {
  let stack: TestStack;
  const stderr: string[] = [];

  beforeAll(async () => {
    stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  /** The SDK's own client transports: `npm run mcp`'s process over stdio, or `/mcp` on the test API. */
  function transport(kind: TransportKind, key: string, logLevel = 'warn'): Transport {
    if (kind === 'http') {
      return new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
    }
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'mcp/stdio.ts')],
      cwd: ROOT,
      env: { ...getDefaultEnvironment(), MNEMO_URL: stack.baseUrl, MNEMO_API_KEY: key, LOG_LEVEL: logLevel },
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    return stdio;
  }

  async function connect(kind: TransportKind, key: string, logLevel?: string): Promise<Client> {
    const client = new Client({ name: 'mnemo-test', version: '1.0.0' });
    await client.connect(transport(kind, key, logLevel));
    return client;
  }

  describe.each<TransportKind>(['stdio', 'http'])('over %s', (kind) => {
    const nsA = `mcp-${kind}-a`;
    const nsB = `mcp-${kind}-b`;
    let keyA: string;
    let keyB: string;
    let client: Client;

    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    /** A successful call's JSON, checked to be the same in the text content and the structured content. */
    async function ok<T>(name: string, args: Record<string, unknown>): Promise<T> {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      const [content] = result.content;
      expect(content.type).toBe('text');
      expect(JSON.parse((content as { text: string }).text)).toEqual(result.structuredContent);
      return result.structuredContent as T;
    }
    /** A failed call's error, in the API's shape. */
    async function failed(name: string, args: Record<string, unknown>): Promise<ApiError['error']> {
      const result = await call(name, args);
      expect(result.isError).toBe(true);
      const body = JSON.parse((result.content[0] as { text: string }).text) as ApiError;
      expect(result.structuredContent).toEqual(body);
      return body.error;
    }
    const asA = <T>(method: string, p: string, body?: unknown) => stack.request<T>(method, p, body, keyA);

    beforeAll(async () => {
      keyA = (await createApiKey(stack.deps.pool, { role: 'agent', namespace: nsA })).key;
      keyB = (await createApiKey(stack.deps.pool, { role: 'agent', namespace: nsB })).key;
      client = await connect(kind, keyA);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('lists the eight tools, each with a description and an input schema with its route\'s scoping', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
      for (const tool of tools) {
        expect(tool.description!.length).toBeGreaterThan(80);
        expect(tool.inputSchema.type).toBe('object');
        const properties = Object.keys(tool.inputSchema.properties ?? {});
        expect(properties).toEqual(expect.arrayContaining(SCOPING[tool.name as keyof typeof SCOPING]));
        for (const schema of Object.values(tool.inputSchema.properties ?? {})) {
          expect((schema as { description?: string }).description).toEqual(expect.any(String));
        }
      }
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.get('remember')!.inputSchema.required).toEqual(['content']);
      expect(byName.get('search_memory')!.inputSchema.required).toEqual(['query']);
      expect(byName.get('forget')!.annotations).toMatchObject({ destructiveHint: true });
      expect(byName.get('get_facts')!.annotations).toMatchObject({ readOnlyHint: true });
      expect(client.getInstructions()).toMatch(/get_context/);
    });

    it('remember stores an episode that search_memory, get_facts, get_context and get_entity then find, as the HTTP API does', async () => {
      const accepted = await ok<{ id: string; status: string }>('remember', {
        content: 'Nadia works at Orbital. Nadia lives in Lisbon.',
        user_id: 'nadia',
        agent_id: 'planner',
        speaker: 'nadia',
        metadata: { via: kind },
      });
      expect(accepted.status).toBe('pending');
      const stored = await asA<{ namespace: string; content: string; user_id: string; agent_id: string; metadata: unknown }>('GET', `/v1/memories/${accepted.id}`);
      expect(stored.status).toBe(200);
      expect(stored.body).toMatchObject({ namespace: nsA, content: 'Nadia works at Orbital. Nadia lives in Lisbon.', user_id: 'nadia', agent_id: 'planner', metadata: { via: kind } });
      const extracted = await waitForStatus(stack, accepted.id);
      expect(extracted.status).toBe('extracted');
      expect(extracted.fact_ids.length).toBeGreaterThanOrEqual(2);

      const { facts } = await ok<{ facts: Fact[] }>('get_facts', { user_id: 'nadia' });
      const http = await asA<{ facts: Fact[] }>('GET', '/v1/facts?user_id=nadia');
      expect(facts.map((f) => f.id).sort()).toEqual(http.body.facts.map((f) => f.id).sort());
      expect(facts.map((f) => f.id).sort()).toEqual([...extracted.fact_ids].sort());
      const worksAt = facts.find((f) => /Orbital/.test(f.fact_text))!;
      expect(worksAt).toBeDefined();
      const { facts: filtered } = await ok<{ facts: Fact[] }>('get_facts', { user_id: 'nadia', predicate: worksAt.predicate, limit: 10 });
      expect(filtered.map((f) => f.id)).toEqual([worksAt.id]);

      const search = await ok<{ results: SearchHit[] }>('search_memory', { query: 'Where does Nadia work?', user_id: 'nadia', k: 10 });
      const httpSearch = await asA<{ results: SearchHit[] }>('POST', '/v1/search', { query: 'Where does Nadia work?', user_id: 'nadia', k: 10 });
      expect(search.results.map((r) => r.id).sort()).toEqual(httpSearch.body.results.map((r) => r.id).sort());
      expect(search.results.map((r) => r.id)).toEqual(expect.arrayContaining([accepted.id, worksAt.id]));
      const onlyFacts = await ok<{ results: SearchHit[] }>('search_memory', { query: 'Orbital', user_id: 'nadia', kinds: ['facts'] });
      expect(onlyFacts.results.length).toBeGreaterThan(0);
      expect(new Set(onlyFacts.results.map((r) => r.type))).toEqual(new Set(['fact']));

      const context = await ok<{ text: string; facts: Array<{ id: string }>; token_count: number }>('get_context', { user_id: 'nadia', query: 'Nadia', max_tokens: 500 });
      const httpContext = await asA<{ text: string; facts: Array<{ id: string }> }>('POST', '/v1/context', { user_id: 'nadia', query: 'Nadia', max_tokens: 500 });
      expect(context.text).toMatch(/Orbital/);
      expect(context.text).toBe(httpContext.body.text);
      expect(context.token_count).toBeLessThanOrEqual(500);

      const byName = await ok<EntityMemory>('get_entity', { name: 'Nadia', user_id: 'nadia' });
      expect(byName.entity.name).toBe('Nadia');
      expect(byName.facts.map((f) => f.id)).toContain(worksAt.id);
      expect(byName.other_matches).toEqual(expect.any(Array));
      const byId = await ok<EntityMemory>('get_entity', { id: byName.entity.id });
      const httpEntity = await asA<EntityMemory>('GET', `/v1/entities/${byName.entity.id}`);
      expect(byId.entity).toEqual(httpEntity.body.entity);
      expect(byId.facts.map((f) => f.id).sort()).toEqual(httpEntity.body.facts.map((f) => f.id).sort());
    });

    it('forget removes a memory and a fact from every later read', async () => {
      const { id } = await ok<{ id: string }>('remember', { content: 'Nadia loves green tea.', user_id: 'tea' });
      const extracted = await waitForStatus(stack, id);
      expect(extracted.fact_ids).toHaveLength(1);
      const forgotten = await ok<{ id: string; forgotten_at: string }>('forget', { id });
      expect(forgotten).toMatchObject({ id, forgotten_at: expect.any(String) });
      expect((await asA('GET', `/v1/memories/${id}`)).status).toBe(404);
      expect((await ok<{ facts: Fact[] }>('get_facts', { user_id: 'tea' })).facts).toEqual([]);
      // Forgetting again is idempotent: the same instant, nothing new.
      expect(await ok<{ forgotten_at: string }>('forget', { id })).toMatchObject({ id, forgotten_at: forgotten.forgotten_at });

      const { facts } = await ok<{ facts: Fact[] }>('get_facts', { user_id: 'nadia' });
      const [first] = facts;
      expect(await ok<{ id: string }>('forget', { kind: 'fact', id: first.id })).toMatchObject({ id: first.id });
      const after = await asA<{ facts: Fact[] }>('GET', '/v1/facts?user_id=nadia');
      expect(after.body.facts.map((f) => f.id)).not.toContain(first.id);
      expect(after.body.facts).toHaveLength(facts.length - 1);
    });

    it('add_session_turn and get_session keep a task\'s working memory', async () => {
      const first = await ok<{ task_id: string; turn_index: number; workflow_id: string }>('add_session_turn', {
        task_id: 'ticket-1',
        role: 'user',
        content: 'Please migrate the billing database.',
        user_id: 'nadia',
      });
      expect(first).toEqual({ task_id: 'ticket-1', turn_index: 0, workflow_id: `session:${nsA}:ticket-1` });
      const second = await ok<{ turn_index: number }>('add_session_turn', {
        task_id: 'ticket-1',
        role: 'tool',
        content: 'row count',
        tool_result: { rows: 1200 },
      });
      expect(second.turn_index).toBe(1);
      const session = await ok<{ task_id: string; turn_count: number; turns: Array<{ role: string; content: string; tool_result: unknown }> }>('get_session', {
        task_id: 'ticket-1',
      });
      expect(session).toMatchObject({ task_id: 'ticket-1', turn_count: 2 });
      expect(session.turns.map((t) => [t.role, t.content])).toEqual([
        ['user', 'Please migrate the billing database.'],
        ['tool', 'row count'],
      ]);
      expect(session.turns[1].tool_result).toEqual({ rows: 1200 });
      const http = await asA<unknown>('GET', `/v1/sessions/ticket-1?namespace=${nsA}`);
      expect(session).toEqual(http.body);
    });

    it('reports API errors as tool errors with the API\'s code, message and details', async () => {
      expect(await failed('get_session', { task_id: 'no-such-task' })).toMatchObject({ code: 'not_found', message: 'Session not found' });
      const tooLong = await failed('remember', { content: 'x'.repeat(100_001) });
      expect(tooLong.code).toBe('invalid_input');
      expect(tooLong.details!.map((d) => d.field)).toContain('content');
      expect(await failed('get_entity', {})).toMatchObject({ code: 'invalid_input' });
      expect(await failed('get_entity', { name: 'Nobody Anywhere' })).toMatchObject({ code: 'not_found' });
      // Arguments that break a tool's own input schema are refused by the SDK before any API call.
      const bad = await call('search_memory', { query: 'x', namespace: 'bad namespace!' });
      expect(bad.isError).toBe(true);
    });

    it('a key of namespace A cannot reach namespace B through MCP', async () => {
      const secret = await stack.request<{ id: string }>('POST', '/v1/memories', { content: 'Boris keeps the vault code 4471 at Zenith Bank.', user_id: 'boris' }, keyB);
      expect(secret.status).toBe(202);
      const extracted = await waitForStatus(stack, secret.body.id);
      expect(extracted.entity_ids.length).toBeGreaterThan(0);
      await stack.request('POST', '/v1/sessions/vault/turns', { role: 'user', content: 'The vault code is 4471.' }, keyB);
      const seenByB = await stack.request<{ results: SearchHit[] }>('POST', '/v1/search', { query: 'Boris vault code', k: 20 }, keyB);
      expect(seenByB.body.results.map((r) => r.id)).toContain(secret.body.id);

      const texts: string[] = [];
      const collect = async (name: string, args: Record<string, unknown>) => {
        const result = await call(name, args);
        texts.push(JSON.stringify(result));
        return result;
      };
      // Asking for B by name: refused.
      for (const [name, args] of [
        ['search_memory', { query: 'Boris vault code', namespace: nsB }],
        ['get_context', { query: 'vault', namespace: nsB }],
        ['get_facts', { namespace: nsB }],
        ['get_entity', { name: 'Boris', namespace: nsB }],
        ['get_session', { task_id: 'vault', namespace: nsB }],
        ['remember', { content: 'planted by A', namespace: nsB }],
        ['add_session_turn', { task_id: 'vault', role: 'user', content: 'planted by A', namespace: nsB }],
      ] as const) {
        const result = await collect(name, args);
        expect({ name, isError: result.isError, error: (result.structuredContent as unknown as ApiError | undefined)?.error.code, text: result.content }).toMatchObject({ name, isError: true, error: 'forbidden' });
      }
      // B's ids from A's namespace: not found, and nothing forgotten.
      for (const [name, args] of [
        ['get_entity', { id: extracted.entity_ids[0] }],
        ['forget', { id: secret.body.id }],
        ['forget', { kind: 'fact', id: extracted.fact_ids[0] ?? extracted.entity_ids[0] }],
        ['forget', { kind: 'entity', id: extracted.entity_ids[0] }],
        ['get_session', { task_id: 'vault' }],
        ['get_entity', { name: 'Boris' }],
      ] as const) {
        const result = await collect(name, args);
        expect(result.isError).toBe(true);
        expect((result.structuredContent as unknown as ApiError).error.code).toBe('not_found');
      }
      // Searching its own namespace: none of B's content.
      const own = await collect('search_memory', { query: 'Boris vault code 4471 Zenith Bank', k: 50 });
      expect(own.isError).toBeFalsy();
      const ownContext = await collect('get_context', { query: 'Boris vault code' });
      expect(ownContext.isError).toBeFalsy();
      const ownFacts = await collect('get_facts', {});
      expect(ownFacts.isError).toBeFalsy();
      for (const text of texts) {
        // The code as a number of its own: ids are hex with hyphens, and one of them may hold the digits 4471.
        expect(text).not.toMatch(/(?<![\w-])4471(?![\w-])|Zenith|Boris keeps/);
      }

      const still = await stack.request<{ forgotten_at: string | null }>('GET', `/v1/memories/${secret.body.id}`, undefined, keyB);
      expect(still.status).toBe(200);
      expect(still.body.forgotten_at).toBeNull();
      const { rows } = await stack.deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM episode WHERE namespace = $1 AND content = 'planted by A'`, [nsB]);
      expect(rows[0].n).toBe(0);
      const session = await stack.request<{ turn_count: number }>('GET', '/v1/sessions/vault', undefined, keyB);
      expect(session.body.turn_count).toBe(1);
    });
  });

  describe('/mcp over HTTP', () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
    };
    const post = (headers: Record<string, string>, body: unknown = initialize) =>
      fetch(`${stack.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });

    it('answers 401 without a bearer key or with an unknown one, in the API\'s error shape', async () => {
      for (const headers of [{} as Record<string, string>, { authorization: 'Bearer not-a-real-key-000000000' }, { authorization: 'Basic dXNlcjpwYXNz' }]) {
        const res = await post(headers);
        expect(res.status).toBe(401);
        expect(((await res.json()) as ApiError).error.code).toBe('unauthorized');
      }
      const client = new Client({ name: 'mnemo-test', version: '1.0.0' });
      await expect(client.connect(transport('http', 'not-a-real-key-000000000'))).rejects.toThrow(/401|nauthorized/);
    });

    it('initializes statelessly with plain JSON for a valid key, and refuses GET with 405', async () => {
      const { key } = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'mcp-plain' });
      const res = await post({ authorization: `Bearer ${key}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      const body = (await res.json()) as { result: { serverInfo: { name: string }; capabilities: { tools?: unknown } } };
      expect(body.result.serverInfo.name).toBe('mnemo');
      expect(body.result.capabilities.tools).toBeDefined();
      const list = await post({ authorization: `Bearer ${key}` }, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      const tools = ((await list.json()) as { result: { tools: Array<{ name: string }> } }).result.tools;
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
      const get = await fetch(`${stack.baseUrl}/mcp`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
    });

    it('acts with the caller\'s key and request id: the memory lands in the key\'s namespace, its forgetting is audited as that key', async () => {
      const created = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'mcp-audit' });
      const client = await connect('http', created.key);
      let id: string;
      try {
        const result = (await client.callTool({ name: 'remember', arguments: { content: 'Ilse prefers window seats.' } })) as CallToolResult;
        id = (result.structuredContent as { id: string }).id;
      } finally {
        await client.close();
      }
      const { rows } = await stack.deps.pool.query<{ namespace: string }>('SELECT namespace FROM episode WHERE id = $1', [id]);
      expect(rows).toEqual([{ namespace: 'mcp-audit' }]);
      // A bare JSON-RPC call (stateless: no initialize needed) carrying its own x-request-id.
      const res = await post(
        { authorization: `Bearer ${created.key}`, 'x-request-id': 'mcp-forget-1' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'forget', arguments: { id } } },
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result: CallToolResult };
      expect(body.result.isError).toBeFalsy();
      expect(body.result.structuredContent).toMatchObject({ id });
      const audit = await stack.deps.pool.query<{ actor: string; request_id: string }>(
        `SELECT actor, request_id FROM audit_log WHERE action = 'episode.forgotten' AND target_id = $1`,
        [id],
      );
      expect(audit.rows).toEqual([{ actor: `key:${created.id}`, request_id: 'mcp-forget-1' }]);
    });
  });

  describe('stdio configuration', () => {
    it('defaults MNEMO_URL to the API\'s default port and rejects bad values naming the variable', () => {
      expect(loadMcpConfig({})).toEqual({ MNEMO_URL: 'http://127.0.0.1:8080', MNEMO_API_KEY: undefined, LOG_LEVEL: 'info' });
      expect(loadMcpConfig({ MNEMO_URL: ' https://mnemo.example.com ', MNEMO_API_KEY: 'k-1', LOG_LEVEL: 'warn' })).toEqual({
        MNEMO_URL: 'https://mnemo.example.com',
        MNEMO_API_KEY: 'k-1',
        LOG_LEVEL: 'warn',
      });
      expect(loadMcpConfig({ MNEMO_URL: '' }).MNEMO_URL).toBe('http://127.0.0.1:8080');
      expect(() => loadMcpConfig({ MNEMO_URL: 'ftp://mnemo.example.com' })).toThrow(/MNEMO_URL/);
      expect(() => loadMcpConfig({ MNEMO_URL: 'not a url' })).toThrow(/MNEMO_URL/);
      expect(() => loadMcpConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    });

    it('writes its logs to stderr, keeping stdout for the protocol', async () => {
      const { key } = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'mcp-logs' });
      const before = stderr.length;
      const client = await connect('stdio', key, 'info');
      try {
        // The client parses every stdout line as JSON-RPC: a log line there would break this call.
        expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
        await eventually(async () => stderr.slice(before).join(''), (text) => text.includes('Mnemo MCP server on stdio'), 'the start-up log line on stderr');
      } finally {
        await client.close();
      }
    });
  });
});
