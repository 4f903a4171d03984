// Open-loop load generator, run in a worker thread so that its sending and timing do not share
// the event loop of the API under test. Plain JavaScript: worker threads load it without a compiler.
// workerData: { baseUrl, key, seconds, streams: [{ kind, perSecond, requests: [{ path, body }] }] }
// Posts back one message: Array<{ kind, status, retryAfter, latencyMs, dueS, id?, error? }> (dueS: when it was due, in seconds of the load).
import { parentPort, workerData } from 'node:worker_threads';

const { baseUrl, key, seconds, streams } = workerData;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function send(kind, request, dueAt) {
  const answer = await answerOf(kind, request, dueAt);
  return { ...answer, dueS: (dueAt - start) / 1000 };
}

async function answerOf(kind, request, dueAt) {
  try {
    const res = await fetch(`${baseUrl}${request.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(request.body),
    });
    const text = await res.text();
    const answer = { kind, status: res.status, retryAfter: res.headers.get('retry-after'), latencyMs: performance.now() - dueAt };
    if (kind === 'write' && res.status === 202) answer.id = JSON.parse(text).id;
    return answer;
  } catch (err) {
    return { kind, status: 0, retryAfter: null, latencyMs: performance.now() - dueAt, error: String(err) };
  }
}

const pending = [];
const sent = streams.map(() => 0);
const start = performance.now();
for (;;) {
  const elapsed = (performance.now() - start) / 1000;
  if (elapsed >= seconds) break;
  streams.forEach((stream, s) => {
    // Everything due by now goes out now, stamped with when it was due: a late send counts against latency.
    while (sent[s] <= elapsed * stream.perSecond) {
      const n = sent[s]++;
      pending.push(send(stream.kind, stream.requests[n % stream.requests.length], start + (n * 1000) / stream.perSecond));
    }
  });
  await sleep(2);
}
parentPort.postMessage(await Promise.all(pending));
