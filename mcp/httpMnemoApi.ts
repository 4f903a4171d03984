import { z } from 'zod';
import { MnemoApiError, type ApiBody, type MnemoApi } from './mnemoApi.js';

export interface HttpMnemoApiOptions {
  /** Where the API listens, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`; the API decides what it may reach. */
  apiKey?: string;
  /** Forwarded as `x-request-id`, so the API's log lines join the MCP request's. */
  requestId?: string;
  timeoutMs?: number;
}

const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});

type Query = Record<string, string | number | boolean | undefined>;

/** The MnemoApi over plain `fetch`: one request per operation, JSON both ways, API errors as MnemoApiError. */
export function httpMnemoApi(options: HttpMnemoApiOptions): MnemoApi {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function call(method: 'GET' | 'POST', path: string, { query, body }: { query?: Query; body?: unknown } = {}): Promise<ApiBody> {
    const url = new URL(`${base}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    if (options.requestId) headers['x-request-id'] = options.requestId;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      throw new MnemoApiError(503, 'unavailable', `Mnemo API at ${base} could not be reached: ${(err as Error).message}`);
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON (a proxy's error page): reported below with the status.
    }
    if (!res.ok) {
      const parsed = errorBodySchema.safeParse(json);
      if (parsed.success) throw new MnemoApiError(res.status, parsed.data.error.code, parsed.data.error.message, parsed.data.error.details ?? null);
      throw new MnemoApiError(res.status, res.status >= 500 ? 'unavailable' : 'internal', `Mnemo API answered ${res.status}: ${text.slice(0, 200)}`);
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json)) {
      throw new MnemoApiError(502, 'internal', `Mnemo API answered ${method} ${path} with a body that is not a JSON object`);
    }
    return json as ApiBody;
  }

  const seg = encodeURIComponent;
  const forgetPaths = { memory: 'memories', fact: 'facts', entity: 'entities' } as const;

  return {
    remember: (input) => call('POST', '/v1/memories', { body: input }),
    search: (input) => call('POST', '/v1/search', { body: input }),
    context: (input) => call('POST', '/v1/context', { body: input }),
    facts: (input) => call('GET', '/v1/facts', { query: input }),
    findEntities: (input) => call('GET', '/v1/entities', { query: input }),
    entity: (id, scope) => call('GET', `/v1/entities/${seg(id)}`, { query: { ...scope } }),
    forget: (kind, id) => call('POST', `/v1/${forgetPaths[kind]}/${seg(id)}/forget`),
    addSessionTurn: ({ task_id, ...turn }) => call('POST', `/v1/sessions/${seg(task_id)}/turns`, { body: turn }),
    session: ({ task_id, namespace }) => call('GET', `/v1/sessions/${seg(task_id)}`, { query: { namespace } }),
  };
}
