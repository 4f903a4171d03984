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
  body?: unknown;
}

/**
 * Sends each stream's requests on a fixed schedule for `seconds`, whether or
 * not earlier ones have answered (as agents do), and resolves with every
 * answer once the last has come back. Status 0: the request failed outright.
 */
export async function openLoop(baseUrl: string, key: string, streams: LoadStream[], seconds: number): Promise<LoadAnswer[]> {
  const pending: Array<Promise<LoadAnswer>> = [];
  const sent = streams.map(() => 0);
  const start = performance.now();
  const send = async (stream: LoadStream, n: number): Promise<LoadAnswer> => {
    const dueAt = start + (n * 1000) / stream.perSecond;
    const req = stream.request(n);
    try {
      const res = await fetch(`${baseUrl}${req.path}`, {
        method: req.method,
        headers: { authorization: `Bearer ${key}`, ...(req.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
      });
      const text = await res.text();
      return { stream: stream.name, status: res.status, latencyMs: performance.now() - dueAt, body: text ? (JSON.parse(text) as unknown) : undefined };
    } catch {
      return { stream: stream.name, status: 0, latencyMs: performance.now() - dueAt };
    }
  };
  for (;;) {
    const elapsed = (performance.now() - start) / 1000;
    if (elapsed >= seconds) break;
    streams.forEach((stream, s) => {
      // Request n is due at n / perSecond seconds: everything due by now goes out now.
      while (sent[s] <= elapsed * stream.perSecond) pending.push(send(stream, sent[s]++));
    });
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return Promise.all(pending);
}
