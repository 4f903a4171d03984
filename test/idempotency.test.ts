import { randomUUID } from 'node:crypto';
import { createApiKey } from '../core/auth/apiKeys.js';
import { IdempotencyStore } from '../core/memories/idempotency.js';
import { ADMIN_KEY, startTestStack, type TestStack } from './support/stack.js';

interface Answer {
  status: number;
  body: { id?: string; memories?: Array<{ id: string }>; error?: { code: string; message: string; details: unknown } };
  replayed: boolean;
}

describe('Idempotency-Key on memory writes', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // No worker: extraction is not what is tested, and the episodes stay `pending` (reconcile would start them later).
    stack = await startTestStack({ withWorker: false });
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function post(path: string, body: unknown, idempotencyKey?: string, key = ADMIN_KEY): Promise<Answer> {
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'], replayed: res.headers.get('idempotent-replayed') === 'true' };
  }

  async function episodesIn(namespace: string): Promise<string[]> {
    const { rows } = await stack.deps.pool.query<{ id: string }>('SELECT id FROM episode WHERE namespace = $1 ORDER BY id', [namespace]);
    return rows.map((r) => r.id);
  }

  it('20 concurrent identical requests store one episode and all answer its id', async () => {
    const key = randomUUID();
    const body = { content: 'Ingrid moved to Bergen in March.', namespace: 'idem-concurrent', user_id: 'ingrid' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('/v1/memories', body, key)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    expect(await episodesIn('idem-concurrent')).toEqual([...ids]);
    // Exactly one of them did the write; the others were answered from the stored result.
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
  });

  it('a later retry with the same key and body answers the original result (same id, same status)', async () => {
    const key = randomUUID();
    const body = { content: 'Tomas prefers tea.', namespace: 'idem-retry', metadata: { b: 2, a: 1 } };
    const first = await post('/v1/memories', body, key);
    expect(first.status).toBe(202);
    expect(first.replayed).toBe(false);
    // Same body with its keys in another order: the same request.
    const again = await post('/v1/memories', { metadata: { a: 1, b: 2 }, namespace: 'idem-retry', content: 'Tomas prefers tea.' }, key);
    expect(again).toEqual({ status: 202, body: first.body, replayed: true });
    expect(await episodesIn('idem-retry')).toEqual([first.body.id]);
  });

  it('the same key with another body is a 422 and stores nothing', async () => {
    const key = randomUUID();
    const first = await post('/v1/memories', { content: 'Lena owns a red bike.', namespace: 'idem-mismatch' }, key);
    expect(first.status).toBe(202);
    const other = await post('/v1/memories', { content: 'Lena owns a blue bike.', namespace: 'idem-mismatch' }, key);
    expect(other.status).toBe(422);
    expect(other.body.error).toEqual({
      code: 'idempotency_mismatch',
      message: expect.stringContaining('different request'),
      details: { idempotency_key: key },
    });
    // The same key on the batch route is another request too.
    const onBatch = await post('/v1/memories/batch', { memories: [{ content: 'Lena owns a red bike.', namespace: 'idem-mismatch' }] }, key);
    expect(onBatch.status).toBe(422);
    expect(await episodesIn('idem-mismatch')).toEqual([first.body.id]);
  });

  it('batches: 20 concurrent identical batches store their memories once; another body is a 422', async () => {
    const key = randomUUID();
    const body = { memories: [1, 2, 3].map((i) => ({ content: `Batch note ${i} about Oslo.`, namespace: 'idem-batch' })) };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('/v1/memories/batch', body, key)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    const idLists = new Set(answers.map((a) => JSON.stringify(a.body.memories!.map((m) => m.id))));
    expect(idLists.size).toBe(1);
    const ids = answers[0].body.memories!.map((m) => m.id);
    expect(await episodesIn('idem-batch')).toEqual([...ids].sort());
    const changed = await post('/v1/memories/batch', { memories: [...body.memories, { content: 'one more', namespace: 'idem-batch' }] }, key);
    expect(changed.status).toBe(422);
    expect(changed.body.error!.code).toBe('idempotency_mismatch');
    expect(await episodesIn('idem-batch')).toHaveLength(3);
  });

  it('keys belong to one API key: another key with the same Idempotency-Key writes its own episode', async () => {
    const agent = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'idem-keys' });
    const key = randomUUID();
    const body = { content: 'Per plays the cello.', namespace: 'idem-keys' };
    const byAdmin = await post('/v1/memories', body, key);
    const byAgent = await post('/v1/memories', body, key, agent.key);
    expect([byAdmin.status, byAgent.status]).toEqual([202, 202]);
    expect(byAgent.body.id).not.toBe(byAdmin.body.id);
    expect(byAgent.replayed).toBe(false);
  });

  it('a refused write keeps nothing: the same key may then be used again', async () => {
    const key = randomUUID();
    const unknownTask = await post('/v1/memories', { content: 'For a task that does not exist.', namespace: 'idem-refused', task_id: randomUUID() }, key);
    expect(unknownTask.status).toBe(400);
    const { rows } = await stack.deps.pool.query('SELECT 1 FROM idempotency_key WHERE idempotency_key = $1', [key]);
    expect(rows).toHaveLength(0);
    const ok = await post('/v1/memories', { content: 'A plain note.', namespace: 'idem-refused' }, key);
    expect(ok.status).toBe(202);
    expect(ok.replayed).toBe(false);
  });

  it('a key expires after 24 h: then it writes again, and the purge removes expired rows', async () => {
    const key = randomUUID();
    const body = { content: 'Astrid visits Tromsø.', namespace: 'idem-expiry' };
    const first = await post('/v1/memories', body, key);
    await stack.deps.pool.query(`UPDATE idempotency_key SET created_at = now() - interval '25 hours' WHERE idempotency_key = $1`, [key]);
    const later = await post('/v1/memories', body, key);
    expect(later.status).toBe(202);
    expect(later.replayed).toBe(false);
    expect(later.body.id).not.toBe(first.body.id);
    expect(await episodesIn('idem-expiry')).toHaveLength(2);

    const stale = randomUUID();
    await post('/v1/memories', { content: 'Old note.', namespace: 'idem-expiry' }, stale);
    await stack.deps.pool.query(`UPDATE idempotency_key SET created_at = now() - interval '25 hours' WHERE idempotency_key = $1`, [stale]);
    const purged = await new IdempotencyStore(stack.deps.pool, () => new Date()).purgeExpired();
    expect(purged).toBeGreaterThanOrEqual(1);
    const { rows } = await stack.deps.pool.query('SELECT idempotency_key FROM idempotency_key WHERE idempotency_key = ANY($1)', [[key, stale]]);
    expect(rows).toEqual([{ idempotency_key: key }]);
  });

  it('rejects a malformed Idempotency-Key with 400 and stores nothing', async () => {
    const res = await post('/v1/memories', { content: 'Bad key.', namespace: 'idem-bad-key' }, 'x'.repeat(256));
    expect(res.status).toBe(400);
    expect(res.body.error!.code).toBe('invalid_input');
    expect(await episodesIn('idem-bad-key')).toEqual([]);
  });

  it('without the header, identical requests are separate memories (as before)', async () => {
    const body = { content: 'No key here.', namespace: 'idem-none' };
    const [a, b] = await Promise.all([post('/v1/memories', body), post('/v1/memories', body)]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(await episodesIn('idem-none')).toHaveLength(2);
  });
});
