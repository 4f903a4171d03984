import { MnemoApiError } from './errors.js';

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
  /** Retries of a 503 or 429 (and of a network error, for requests safe to repeat). Default 3. */
  maxRetries?: number;
  /** Longest wait between two attempts, whatever Retry-After says. Default 30 s. */
  maxRetryDelayMs?: number;
}

export interface RequestOptions {
  query?: Record<string, unknown>;
  body?: unknown;
  /** Sent as Idempotency-Key on every attempt of this call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

type QueryValue = string | number | boolean | null | undefined;

/** Delay before the next attempt: the server's Retry-After (seconds or an HTTP date), else exponential backoff with jitter. */
export function retryDelayMs(retryAfter: string | null, attempt: number, now: number, capMs: number): number {
  let ms: number | null = null;
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) ms = Math.max(0, seconds * 1000);
    else {
      const at = Date.parse(retryAfter);
      if (!Number.isNaN(at)) ms = Math.max(0, at - now);
    }
  }
  ms ??= 250 * 2 ** attempt * (0.5 + Math.random() / 2);
  return Math.min(ms, capMs);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) params.set(key, String(value as QueryValue));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function apiError(res: Response): Promise<MnemoApiError> {
  const text = await res.text();
  const retryAfter = res.headers.get('retry-after');
  const seconds = retryAfter !== null && Number.isFinite(Number(retryAfter)) ? Number(retryAfter) : null;
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string; details?: unknown } };
    if (body.error?.code) return new MnemoApiError(res.status, body.error.code, body.error.message ?? res.statusText, body.error.details ?? null, seconds);
  } catch {
    // Not our JSON error shape (a proxy's page, say): reported with the status only.
  }
  return new MnemoApiError(res.status, `http_${res.status}`, text.slice(0, 500) || res.statusText, null, seconds);
}

/** HTTP with bearer auth, JSON bodies, typed errors and retries of 503/429 that honour Retry-After. */
export class Transport {
  private readonly baseUrl: string;
  private readonly fetch: typeof globalThis.fetch;
  private readonly maxRetries: number;
  private readonly maxRetryDelayMs: number;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.maxRetries = options.maxRetries ?? 3;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const url = `${this.baseUrl}${path}${queryString(options.query)}`;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    // A network failure may have reached the server: repeat only what is safe to repeat.
    const repeatable = method === 'GET' || options.idempotencyKey !== undefined;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetch(url, { method, headers, body, signal: options.signal });
      } catch (err) {
        if (!repeatable || attempt >= this.maxRetries || options.signal?.aborted) throw err;
        await sleep(retryDelayMs(null, attempt, Date.now(), this.maxRetryDelayMs), options.signal);
        continue;
      }
      if (res.ok) {
        const text = await res.text();
        return (text ? JSON.parse(text) : undefined) as T;
      }
      if ((res.status === 503 || res.status === 429) && attempt < this.maxRetries) {
        const delay = retryDelayMs(res.headers.get('retry-after'), attempt, Date.now(), this.maxRetryDelayMs);
        await res.body?.cancel();
        await sleep(delay, options.signal);
        continue;
      }
      throw await apiError(res);
    }
  }
}
