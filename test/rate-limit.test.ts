import { createApiKey } from '../core/auth/apiKeys.js';
import { TokenBuckets } from '../api/rateLimit.js';
import { ADMIN_KEY, startTestStack, type TestStack } from './support/stack.js';

describe('token buckets', () => {
  it('allows a burst, then one request per 1/rate seconds, and says how long to wait', () => {
    let ms = 0;
    const buckets = new TokenBuckets(2, 3, () => ms);
    expect([buckets.take('k'), buckets.take('k'), buckets.take('k')]).toEqual([0, 0, 0]);
    expect(buckets.take('k')).toBe(1); // 0 tokens at 2/s: half a second, rounded up to Retry-After's whole seconds
    ms += 500;
    expect(buckets.take('k')).toBe(0);
    expect(buckets.take('k')).toBeGreaterThan(0);
    // Another key has its own bucket.
    expect(buckets.take('other')).toBe(0);
    // Refill never exceeds the burst.
    ms += 60_000;
    expect([buckets.take('k'), buckets.take('k'), buckets.take('k'), buckets.take('k')]).toEqual([0, 0, 0, 1]);
  });

  it('a slow rate asks for a longer wait', () => {
    const buckets = new TokenBuckets(0.1, 1, () => 0);
    expect(buckets.take('k')).toBe(0);
    expect(buckets.take('k')).toBe(10);
  });

  it('keeps memory bounded: idle (full) buckets are dropped once there are many keys', () => {
    let ms = 0;
    const buckets = new TokenBuckets(1000, 1, () => ms);
    for (let i = 0; i < 10_000; i++) buckets.take(`key-${i}`);
    ms += 10; // every bucket has refilled
    buckets.take('one-more');
    expect(buckets.size).toBeLessThan(10);
  });
});

describe('rate limiting per API key', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // 0.5/s: a token comes back every 2 s, far longer than the few requests below take even on PGlite.
    stack = await startTestStack({ withWorker: false, env: { RATE_LIMIT_PER_SECOND: '0.5', RATE_LIMIT_BURST: '3' } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('answers 429 with Retry-After and the error shape past the burst, per key, and recovers', async () => {
    const a = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'rl-a' });
    const b = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'rl-b' });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await stack.request('GET', '/v1/memories', undefined, a.key)).status);
    expect(statuses).toEqual([200, 200, 200]);

    const res = await fetch(`${stack.baseUrl}/v1/memories`, { method: 'POST', headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ content: 'over the limit' }) });
    expect(res.status).toBe(429);
    // Up to 2 s (one token at 0.5/s), less if part of a token came back while the requests above ran.
    const retryAfter = Number(res.headers.get('retry-after'));
    expect([1, 2]).toContain(retryAfter);
    expect(await res.json()).toEqual({
      error: { code: 'rate_limited', message: expect.stringContaining('Rate limit'), details: { retry_after_seconds: retryAfter } },
    });
    // A refused write stored nothing.
    const { rows } = await stack.deps.pool.query(`SELECT 1 FROM episode WHERE namespace = 'rl-a'`);
    expect(rows).toHaveLength(0);

    // Key b is not affected by a's bucket.
    expect((await stack.request('GET', '/v1/memories', undefined, b.key)).status).toBe(200);

    await new Promise((r) => setTimeout(r, 2_100));
    expect((await stack.request('GET', '/v1/memories', undefined, a.key)).status).toBe(200);
  });

  it('does not limit admin keys by default', async () => {
    const statuses = await Promise.all(Array.from({ length: 10 }, () => stack.request('GET', '/v1/memories', undefined, ADMIN_KEY)));
    expect(statuses.map((s) => s.status)).toEqual(Array(10).fill(200));
  });

  it('an unauthenticated request is a 401, not a 429 (authentication comes first)', async () => {
    const statuses = await Promise.all(Array.from({ length: 5 }, () => stack.request('GET', '/v1/memories', undefined, 'wrong-key')));
    expect(statuses.map((s) => s.status)).toEqual(Array(5).fill(401));
  });
});

describe('rate limiting of admin keys when RATE_LIMIT_ADMIN=true', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false, env: { RATE_LIMIT_PER_SECOND: '0.5', RATE_LIMIT_BURST: '2', RATE_LIMIT_ADMIN: 'true' } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('limits them like any key', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await stack.request('GET', '/v1/memories')).status);
    expect(statuses).toEqual([200, 200, 429]);
  });
});
