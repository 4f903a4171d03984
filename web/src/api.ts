import type { SessionInfo } from './types.js';

/** An error answer of the API, in its one JSON shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

async function parse<T>(res: Response): Promise<T> {
  const text = await res.text();
  const body: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(res.status, error?.code ?? 'error', error?.message ?? `${res.status} ${res.statusText}`);
  }
  return body as T;
}

/** The session's login endpoints (no namespace, no CSRF token yet). */
export async function loadSession(): Promise<SessionInfo | null> {
  const res = await fetch('/kg/session', { credentials: 'same-origin' });
  if (res.status === 401) return null;
  return parse<SessionInfo>(res);
}

export async function login(secret: string): Promise<SessionInfo> {
  const res = await fetch('/kg/login', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ secret }),
  });
  return parse<SessionInfo>(res);
}

type Query = Record<string, string | number | boolean | undefined>;

/**
 * The `/v1` API as the page's session: the cookie authenticates, every request
 * names its namespace, and every change carries the session's CSRF token.
 */
export class Api {
  constructor(
    private readonly session: SessionInfo,
    public namespace: string,
  ) {}

  get info(): SessionInfo {
    return this.session;
  }

  private async call<T>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    const headers: Record<string, string> = { 'x-mnemo-namespace': this.namespace };
    if (method !== 'GET') headers['x-csrf-token'] = this.session.csrf_token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`/v1${path}${qs ? `?${qs}` : ''}`, {
      method,
      credentials: 'same-origin',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // The session expired or the secret changed: the reload shows the login.
    if (res.status === 401) location.reload();
    return parse<T>(res);
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.call<T>('GET', path, query);
  }
  post<T>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.call<T>('POST', path, query, body);
  }
  patch<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PATCH', path, {}, body);
  }
  delete<T>(path: string, query?: Query): Promise<T> {
    return this.call<T>('DELETE', path, query);
  }
}
