import { createApiKey } from '../core/auth/apiKeys.js';
import { startTestStack, waitForStatus, type TestStack } from './support/stack.js';

interface ErrorBody {
  error: { code: string; message: string; details: Array<{ field: string; message: string }> | null };
}

describe('memories API', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function episodeCount(): Promise<number> {
    const { rows } = await stack.deps.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM episode');
    return rows[0].n;
  }

  it('rejects bad input with 400 naming each invalid field, and writes nothing', async () => {
    const before = await episodeCount();
    const cases: Array<{ body: unknown; fields: string[] }> = [
      { body: { content: '' }, fields: ['content'] },
      { body: { content: '   ' }, fields: ['content'] },
      { body: { content: 'x'.repeat(100_001) }, fields: ['content'] },
      { body: { content: 'hello', colour: 'red' }, fields: ['(body)'] },
      { body: { content: 'hello', occurred_at: 'yesterday-ish', t_valid_override: '2026-13-45' }, fields: ['occurred_at', 't_valid_override'] },
      { body: { content: 42, skip_extraction: 'yes' }, fields: ['content', 'skip_extraction'] },
      { body: { content: 'hello', namespace: 'bad namespace!' }, fields: ['namespace'] },
    ];
    for (const c of cases) {
      const res = await stack.request<ErrorBody>('POST', '/v1/memories', c.body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
      const fields = res.body.error.details!.map((d) => d.field);
      for (const f of c.fields) expect(fields).toContain(f);
    }
    const unknown = await stack.request<ErrorBody>('POST', '/v1/memories', { content: 'hello', colour: 'red' });
    expect(JSON.stringify(unknown.body.error.details)).toContain('colour');

    const tooMany = await stack.request<ErrorBody>('POST', '/v1/memories/batch', {
      memories: Array.from({ length: 101 }, (_, i) => ({ content: `note ${i}` })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details!.map((d) => d.field)).toContain('memories');
    const badItem = await stack.request<ErrorBody>('POST', '/v1/memories/batch', { memories: [{ content: 'ok' }, { content: '' }] });
    expect(badItem.status).toBe(400);
    expect(badItem.body.error.details!.map((d) => d.field)).toContain('memories.1.content');
    expect(await episodeCount()).toBe(before);
  });

  it('acknowledges a write with 202 and the episode row already committed', async () => {
    const res = await stack.request<{ id: string; workflow_id: string; status: string }>('POST', '/v1/memories', {
      content: 'Nadia works at Orbital.',
      namespace: 'api-write',
      user_id: 'nadia',
      metadata: { channel: 'cli' },
    });
    expect(res.status).toBe(202);
    expect(res.body.workflow_id).toBe(`episode:${res.body.id}`);
    expect(res.body.status).toBe('pending');
    const { rows } = await stack.deps.pool.query('SELECT namespace, user_id, metadata FROM episode WHERE id = $1', [res.body.id]);
    expect(rows[0]).toEqual({ namespace: 'api-write', user_id: 'nadia', metadata: { channel: 'cli' } });
    const done = await waitForStatus(stack, res.body.id);
    expect(done.status).toBe('extracted');
    expect(done.fact_ids.length).toBeGreaterThan(0);
    expect(done.entity_ids.length).toBeGreaterThan(0);

    const stages = await stack.request<{ stages: Array<{ stage: string; status: string; attempt: number; duration_ms: number }> }>(
      'GET',
      `/v1/memories/${res.body.id}/stages`,
    );
    expect(stages.body.stages.map((s) => s.stage)).toEqual([
      'entity-extract',
      'entity-resolve',
      'fact-extract',
      'fact-dedup',
      'temporal',
      'contradiction',
      'commit',
    ]);
    for (const s of stages.body.stages) {
      expect(s.status).toBe('succeeded');
      expect(s.attempt).toBe(1);
      expect(s.duration_ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('skip_extraction keeps the episode and marks it skipped', async () => {
    const res = await stack.request<{ id: string }>('POST', '/v1/memories', { content: 'Raw log line', namespace: 'api-skip', skip_extraction: true });
    const done = await waitForStatus(stack, res.body.id);
    expect(done.status).toBe('skipped');
    expect(done.fact_ids).toEqual([]);
    const { rows } = await stack.deps.pool.query('SELECT embedding IS NOT NULL AS embedded FROM episode WHERE id = $1', [res.body.id]);
    expect(rows[0].embedded).toBe(true);
  });

  it('accepts batches and lists newest first with a cursor', async () => {
    const batch = await stack.request<{ memories: Array<{ id: string }> }>('POST', '/v1/memories/batch', {
      memories: Array.from({ length: 5 }, (_, i) => ({ content: `Batch note ${i}`, namespace: 'api-list', user_id: 'lister', skip_extraction: true })),
    });
    expect(batch.status).toBe(202);
    expect(batch.body.memories).toHaveLength(5);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const qs: string = new URLSearchParams({ namespace: 'api-list', user_id: 'lister', limit: '2', ...(cursor ? { cursor } : {}) }).toString();
      const page = await stack.request<{ memories: Array<{ id: string; recorded_at: string }>; next_cursor: string | null }>('GET', `/v1/memories?${qs}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.memories.map((m) => m.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual(batch.body.memories.map((m) => m.id).sort());
    const other = await stack.request<{ memories: unknown[] }>('GET', '/v1/memories?namespace=api-list&user_id=someone-else');
    expect(other.body.memories).toEqual([]);
  });

  it('retry is 409 unless the memory failed; other namespaces see 404', async () => {
    const res = await stack.request<{ id: string }>('POST', '/v1/memories', { content: 'Omar lives in Cairo.', namespace: 'api-retry' });
    await waitForStatus(stack, res.body.id);
    const retry = await stack.request<ErrorBody>('POST', `/v1/memories/${res.body.id}/retry`);
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('conflict');

    const { key } = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'someone-else' });
    const hidden = await stack.request<ErrorBody>('GET', `/v1/memories/${res.body.id}`, undefined, key);
    expect(hidden.status).toBe(404);
    const forbidden = await stack.request<ErrorBody>('GET', '/v1/memories?namespace=api-retry', undefined, key);
    expect(forbidden.status).toBe(403);
    const missing = await stack.request<ErrorBody>('GET', '/v1/memories/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
  });

  it('POST /v1/facts sends an explicit triple through the same gates', async () => {
    const ns = 'api-explicit';
    const first = await stack.request<{ id: string }>('POST', '/v1/facts', {
      namespace: ns,
      fact: { subject: 'Lena', subject_type: 'person', predicate: 'lives_in', object: 'Oslo', object_type: 'place', valid_from: '2025-01-01T00:00:00Z' },
    });
    expect(first.status).toBe(202);
    await waitForStatus(stack, first.body.id);
    const second = await stack.request<{ id: string }>('POST', '/v1/facts', {
      namespace: ns,
      fact: { subject: 'Lena', subject_type: 'person', predicate: 'lives_in', object: 'Bergen', object_type: 'place', valid_from: '2026-01-01T00:00:00Z' },
    });
    await waitForStatus(stack, second.body.id);
    const facts = await stack.request<{ facts: Array<{ object: { name: string } }> }>('GET', `/v1/facts?namespace=${ns}&subject=lena`);
    expect(facts.body.facts.map((f) => f.object.name)).toEqual(['Bergen']);
    const bad = await stack.request<ErrorBody>('POST', '/v1/facts', { namespace: ns, fact: { subject: 'Lena', predicate: 'Lives In' } });
    expect(bad.status).toBe(400);
  });
});
