import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** One request of an open-loop stream. */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

export interface LoadStream {
  name: string;
  perSecond: number;
  /** The n-th request of the stream. */
  request(n: number): LoadRequest;
}

export interface LoadAnswer {
  stream: string;
  status: number;
  /** From when the request was due, not when it went out: a late send counts against latency. */
  latencyMs: number;
  /** The Retry-After header of a refusal. */
  retryAfter?: string;
  /** Why a request failed outright (status 0): ECONNRESET, … */
  error?: string;
  body?: unknown;
}

export interface OpenLoopOptions {
  /** Parse each answer's JSON body into `body` (the write benchmark needs the acknowledged ids); default true. */
  bodies?: boolean;
}

/**
 * Sends one request on a keep-alive connection of `agent` and resolves with its answer (status 0: it failed
 * outright). Plain node:http rather than fetch: at a thousand requests a second fetch's own CPU showed in the
 * latencies of a trivial server (see `generatorFloor`).
 */
function send(agent: http.Agent, base: URL, key: string, stream: string, req: LoadRequest, dueAt: number, bodies: boolean): Promise<LoadAnswer> {
  const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
  const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${key}` };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  return new Promise((resolve) => {
    const request = http.request({ host: base.hostname, port: base.port, path: req.path, method: req.method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => bodies && chunks.push(chunk));
      res.on('end', () => {
        const latencyMs = performance.now() - dueAt;
        const retryAfter = res.headers['retry-after'];
        let body: unknown;
        if (bodies && chunks.length) {
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            body = undefined;
          }
        }
        resolve({ stream, status: res.statusCode ?? 0, latencyMs, ...(retryAfter ? { retryAfter } : {}), ...(body === undefined ? {} : { body }) });
      });
      res.on('error', () => resolve({ stream, status: 0, latencyMs: performance.now() - dueAt }));
    });
    request.on('error', (err: NodeJS.ErrnoException) => resolve({ stream, status: 0, latencyMs: performance.now() - dueAt, error: err.code ?? err.message }));
    request.end(payload);
  });
}

/**
 * Sends each stream's requests on a fixed schedule for `seconds`, whether or
 * not earlier ones have answered (as agents do), and resolves with every
 * answer once the last has come back. Request n of a stream is due n /
 * perSecond seconds after the start and goes out as soon as it is due (a
 * timer wakes the loop for it), so the load is smooth: autocannon's
 * `overallRate` paces each connection on a timer of its own, and with the 100
 * connections 500 requests/s need those timers fire together, in bursts of
 * 100 (a trivial server answered them with p99 32 ms, against 2 ms sent
 * smoothly). Latency counts from the due time.
 */
export async function openLoop(baseUrl: string, key: string, streams: LoadStream[], seconds: number, options: OpenLoopOptions = {}): Promise<LoadAnswer[]> {
  const base = new URL(baseUrl);
  const bodies = options.bodies ?? true;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const pending: Array<Promise<LoadAnswer>> = [];
  const sent = streams.map(() => 0);
  const start = performance.now();
  try {
    for (;;) {
      const now = performance.now();
      const elapsed = (now - start) / 1000;
      if (elapsed >= seconds) break;
      let nextDue = Number.POSITIVE_INFINITY;
      streams.forEach((stream, s) => {
        // Everything due by now goes out now.
        while (sent[s] <= elapsed * stream.perSecond) {
          const n = sent[s]++;
          pending.push(send(agent, base, key, stream.name, stream.request(n), start + (n * 1000) / stream.perSecond, bodies));
        }
        nextDue = Math.min(nextDue, start + (sent[s] * 1000) / stream.perSecond);
      });
      // Sleep until the next request is due (a timer fires within a millisecond or so of it). Not a busy loop:
      // one spinning on setImmediate took a whole core from the two it measured, and latencies doubled.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(nextDue, start + seconds * 1000) - performance.now())));
    }
    return await Promise.all(pending);
  } finally {
    agent.destroy();
  }
}

/**
 * What the generator itself adds to a latency at `perSecond`: the same open
 * loop against a server that answers at once (in this process, so the figure
 * errs high: the server's work shares the generator's event loop). A
 * benchmark quotes it beside its figures.
 */
export async function generatorFloor(perSecond: number, seconds: number): Promise<LoadAnswer[]> {
  const server = http.createServer((_req, res) => res.end('{}'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    return await openLoop(`http://127.0.0.1:${port}`, 'floor', [{ name: 'floor', perSecond, request: () => ({ method: 'GET', path: '/' }) }], seconds, { bodies: false });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
