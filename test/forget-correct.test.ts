import { createApiKey } from '../core/auth/apiKeys.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';
import type { SearchResponse } from '../client/types.js';

interface ErrorBody {
  error: { code: string; message: string; details: Array<{ field: string; message: string }> | null };
}
interface Fact {
  id: string;
  fact_text: string;
  value: string | null;
  confidence: number;
  importance: number;
  sensitivity: string;
  forgotten_at: string | null;
  previous_values: Array<Record<string, unknown>>;
}
interface ContextBody {
  text: string;
  facts: Array<{ id: string }>;
  memories: Array<{ id: string }>;
}

const NS = 'fc-main';
const USER = 'nadia';
const only = (a: string[], b: string[]) => a.filter((x) => !b.includes(x)).sort();

describe('forget / restore memories and audited fact corrections', () => {
  let stack: TestStack;
  let agent: { id: string; key: string };
  let operator: { id: string; key: string };
  let stranger: { id: string; key: string };
  // A: three facts; B repeats one of them, so that fact has a second supporting episode.
  let a: { id: string; fact_ids: string[]; entity_ids: string[] };
  let b: { id: string; fact_ids: string[]; entity_ids: string[] };
  let shared: string;
  let onlyA: string[];

  beforeAll(async () => {
    stack = await startTestStack();
    agent = await createApiKey(stack.deps.pool, { role: 'agent', namespace: NS });
    operator = await createApiKey(stack.deps.pool, { role: 'operator', namespace: NS });
    stranger = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'fc-other' });
    a = await remember(stack, { namespace: NS, user_id: USER, content: 'Nadia works at Orbital. Nadia loves green tea. Nadia lives in Lisbon.' });
    b = await remember(stack, { namespace: NS, user_id: USER, content: 'Nadia works at Orbital.' });
    [shared] = b.fact_ids;
    onlyA = only(a.fact_ids, b.fact_ids);
  });
  afterAll(async () => {
    await stack.stop();
  });

  const factIds = async (key = agent.key) =>
    (await stack.request<{ facts: Fact[] }>('GET', `/v1/facts?namespace=${NS}`, undefined, key)).body.facts.map((f) => f.id).sort();
  const search = async (query: string) =>
    (await stack.request<SearchResponse>('POST', '/v1/search', { namespace: NS, query, k: 20 }, agent.key)).body.results;
  const audit = async (action: string, targetId?: string) => {
    const { rows } = await stack.deps.pool.query<{ actor: string; target_id: string; before: unknown; after: unknown; request_id: string | null }>(
      `SELECT actor, target_id, before, after, request_id FROM audit_log WHERE namespace = $1 AND action = $2 AND ($3::text IS NULL OR target_id = $3) ORDER BY id`,
      [NS, action, targetId ?? null],
    );
    return rows;
  };

  it('extracted the fixture as expected: one fact shared by both episodes, the rest only in A', () => {
    expect(b.fact_ids).toHaveLength(1);
    expect(a.fact_ids).toContain(shared);
    expect(onlyA.length).toBeGreaterThanOrEqual(2);
  });

  it("answers 404 to a key of another namespace and changes nothing", async () => {
    for (const [method, path, body] of [
      ['POST', `/v1/memories/${a.id}/forget`, undefined],
      ['DELETE', `/v1/memories/${a.id}`, undefined],
      ['PATCH', `/v1/facts/${shared}`, { confidence: 0.1 }],
      ['DELETE', `/v1/facts/${shared}`, undefined],
    ] as const) {
      const res = await stack.request<ErrorBody>(method, path, body, stranger.key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await stack.request('POST', '/v1/memories/not-a-uuid/forget', undefined, agent.key)).status).toBe(404);
    expect(await factIds()).toEqual([...a.fact_ids].sort());
    expect(await audit('episode.forgotten')).toHaveLength(0);
  });

  it('forget hides the episode, its own facts and entities from every read; a fact another episode supports survives', async () => {
    const res = await stack.request<{ id: string; forgotten_at: string; facts_forgotten: number; entities_forgotten: number }>(
      'POST', `/v1/memories/${a.id}/forget`, undefined, agent.key,
    );
    expect(res.status).toBe(200);
    const aloneInA = only(a.entity_ids, b.entity_ids); // e.g. Lisbon
    expect(res.body).toEqual({ id: a.id, forgotten_at: expect.any(String), facts_forgotten: onlyA.length, entities_forgotten: aloneInA.length });
    expect(aloneInA.length).toBeGreaterThanOrEqual(1);

    expect(await factIds()).toEqual([shared]);
    const teaResults = await search('green tea Lisbon');
    expect(teaResults.filter((r) => r.id === a.id || onlyA.includes(r.id) || aloneInA.includes(r.id))).toEqual([]);
    expect((await search('Orbital')).map((r) => r.id)).toContain(shared);
    const context = await stack.request<ContextBody>('GET', `/v1/context?namespace=${NS}&user_id=${USER}&query=tea`, undefined, agent.key);
    expect(context.status).toBe(200);
    expect(context.body.text).toMatch(/Orbital/);
    expect(context.body.text).not.toMatch(/green tea|Lisbon/);
    expect(context.body.facts.map((f) => f.id)).not.toEqual(expect.arrayContaining([onlyA[0]]));

    expect((await stack.request('GET', `/v1/memories/${a.id}`, undefined, agent.key)).status).toBe(404);
    const listed = await stack.request<{ memories: Array<{ id: string }> }>('GET', `/v1/memories?namespace=${NS}`, undefined, agent.key);
    expect(listed.body.memories.map((m) => m.id)).toEqual([b.id]);
    const { rows: entities } = await stack.deps.pool.query<{ id: string }>(
      'SELECT id FROM entity WHERE namespace = $1 AND forgotten_at IS NOT NULL ORDER BY id',
      [NS],
    );
    expect(entities.map((e) => e.id)).toEqual(aloneInA);

    // One audit row per changed row, with the key and request as cause.
    const actor = `key:${agent.id}`;
    expect((await audit('episode.forgotten')).map((r) => [r.target_id, r.actor])).toEqual([[a.id, actor]]);
    expect((await audit('fact.forgotten')).map((r) => r.target_id).sort()).toEqual(onlyA);
    expect((await audit('entity.forgotten')).map((r) => r.target_id).sort()).toEqual(aloneInA);
    expect((await audit('fact.forgotten')).every((r) => r.actor === actor && r.request_id)).toBe(true);

    // Idempotent, and DELETE is the same operation.
    const again = await stack.request('DELETE', `/v1/memories/${a.id}`, undefined, agent.key);
    expect(again).toEqual({ status: 200, body: res.body });
    expect(await audit('episode.forgotten')).toHaveLength(1);
  });

  it('restore needs an operator key and undoes exactly that forget', async () => {
    const denied = await stack.request<ErrorBody>('POST', `/v1/memories/${a.id}/restore`, undefined, agent.key);
    expect(denied.status).toBe(403);
    expect(await factIds()).toEqual([shared]);

    const res = await stack.request('POST', `/v1/memories/${a.id}/restore`, undefined, operator.key);
    expect(res).toEqual({
      status: 200,
      body: { id: a.id, restored: true, facts_restored: onlyA.length, entities_restored: only(a.entity_ids, b.entity_ids).length, entities_left_forgotten: [] },
    });
    expect(await factIds()).toEqual([...a.fact_ids].sort());
    expect((await search('green tea')).map((r) => r.id)).toEqual(expect.arrayContaining([a.id]));
    expect((await stack.request('GET', `/v1/memories/${a.id}`, undefined, agent.key)).status).toBe(200);
    const { rows } = await stack.deps.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM fact WHERE namespace = $1 AND (forgotten_at IS NOT NULL OR properties ? 'forgotten_by_episode')`,
      [NS],
    );
    expect(rows[0].n).toBe(0);
    expect((await audit('fact.restored')).map((r) => r.target_id).sort()).toEqual(onlyA);
    expect((await audit('episode.restored')).map((r) => r.actor)).toEqual([`key:${operator.id}`]);

    const again = await stack.request<{ restored: boolean }>('POST', `/v1/memories/${a.id}/restore`, undefined, operator.key);
    expect(again.body.restored).toBe(false);
    expect(await audit('episode.restored')).toHaveLength(1);
  });

  it('PATCH corrects a fact in place, keeping previous values and an audit row', async () => {
    const tea = (await stack.request<{ facts: Fact[] }>('GET', `/v1/facts?namespace=${NS}&predicate=likes`, undefined, agent.key)).body.facts[0];
    expect(tea.value).toBe('green tea');
    const first = await stack.request<Fact>(
      'PATCH', `/v1/facts/${tea.id}`,
      { fact_text: 'Nadia likes jasmine tea.', value: 'jasmine tea', confidence: 0.9, reason: 'user said jasmine' },
      agent.key,
    );
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: tea.id, fact_text: 'Nadia likes jasmine tea.', value: 'jasmine tea', confidence: expect.closeTo(0.9, 5), sensitivity: tea.sensitivity });
    expect(first.body.previous_values).toEqual([
      expect.objectContaining({ fact_text: 'Nadia likes green tea.', value: 'green tea', confidence: expect.closeTo(tea.confidence, 5), reason: 'user said jasmine', actor: `key:${agent.id}`, replaced_at: expect.any(String) }),
    ]);
    const second = await stack.request<Fact>('PATCH', `/v1/facts/${tea.id}`, { importance: 0.2 }, operator.key);
    expect(second.body.importance).toBeCloseTo(0.2, 5);
    expect(second.body.previous_values).toHaveLength(2);
    expect(second.body.previous_values[1]).toMatchObject({ fact_text: 'Nadia likes jasmine tea.', reason: null });

    const rows = await audit('fact.corrected', tea.id);
    expect(rows).toHaveLength(2);
    expect(rows[0].before).toMatchObject({ fact_text: 'Nadia likes green tea.', value: 'green tea' });
    expect(rows[0].after).toMatchObject({ fact_text: 'Nadia likes jasmine tea.', value: 'jasmine tea', reason: 'user said jasmine' });
    // The text index and embedding follow the correction.
    expect((await search('jasmine')).map((r) => r.id)).toContain(tea.id);
  });

  it('PATCH rejects sensitivity, unknown or empty bodies and corrections that do not fit the fact', async () => {
    const cases: Array<{ body: unknown; field: string }> = [
      { body: {}, field: '(body)' },
      { body: { reason: 'nothing else' }, field: '(body)' },
      { body: { colour: 'red' }, field: '(body)' },
      { body: { confidence: 2 }, field: 'confidence' },
      { body: { valid_from: 'yesterday' }, field: 'valid_from' },
      { body: { valid_from: '2026-03-01T00:00:00Z', invalid_at: '2026-02-01T00:00:00Z' }, field: 'invalid_at' },
      { body: { value: null }, field: 'value' }, // a literal-valued fact needs its value
    ];
    const { rows } = await stack.deps.pool.query<{ id: string }>(`SELECT id FROM fact WHERE namespace = $1 AND predicate = 'likes'`, [NS]);
    const target = rows[0].id;
    const before = (await audit('fact.corrected')).length;
    for (const c of cases) {
      const res = await stack.request<ErrorBody>('PATCH', `/v1/facts/${target}`, c.body, agent.key);
      expect([c.body, res.status]).toEqual([c.body, 400]);
      expect(res.body.error.details!.map((d) => d.field)).toContain(c.field);
    }
    // Sensitivity is immutable: a well-formed request that may never apply is a conflict (issue 16).
    for (const body of [{ sensitivity: 'public' }, { sensitivity: 'restricted', confidence: 0.5 }]) {
      const res = await stack.request<ErrorBody>('PATCH', `/v1/facts/${target}`, body, agent.key);
      expect([body, res.status, res.body.error.code]).toEqual([body, 409, 'conflict']);
      expect(res.body.error.details!.map((d) => d.field)).toContain('sensitivity');
    }
    expect(await audit('fact.corrected')).toHaveLength(before);
    expect((await stack.request('PATCH', '/v1/facts/not-a-uuid', { confidence: 0.5 }, agent.key)).status).toBe(404);
  });

  it('DELETE /v1/facts/:id soft-deletes one fact, idempotently; restoring its episode does not bring it back', async () => {
    const target = onlyA[0];
    const res = await stack.request<{ id: string; forgotten_at: string }>('DELETE', `/v1/facts/${target}`, undefined, agent.key);
    expect(res.status).toBe(200);
    expect(await factIds()).not.toContain(target);
    const again = await stack.request('DELETE', `/v1/facts/${target}`, undefined, agent.key);
    expect(again).toEqual({ status: 200, body: res.body });
    expect(await audit('fact.forgotten', target)).toHaveLength(2); // once by the episode forget earlier, once now
    expect((await stack.request('PATCH', `/v1/facts/${target}`, { confidence: 0.5 }, agent.key)).status).toBe(404);

    await stack.request('POST', `/v1/memories/${a.id}/forget`, undefined, agent.key);
    const restored = await stack.request<{ facts_restored: number }>('POST', `/v1/memories/${a.id}/restore`, undefined, operator.key);
    expect(restored.body.facts_restored).toBe(onlyA.length - 1);
    expect(await factIds()).toEqual(a.fact_ids.filter((id) => id !== target).sort());
    // Operators still see it, marked.
    const all = await stack.request<{ facts: Fact[] }>('GET', `/v1/facts?namespace=${NS}&include_forgotten=true`, undefined, operator.key);
    expect(all.body.facts.find((f) => f.id === target)?.forgotten_at).toBe(res.body.forgotten_at);
  });

  it('restore leaves an entity forgotten when a live namesake replaced it meanwhile', async () => {
    const ns = 'fc-rename';
    const first = await remember(stack, { namespace: ns, content: 'Tomas lives in Porto.' });
    const forgot = await stack.request<{ entities_forgotten: number }>('POST', `/v1/memories/${first.id}/forget`);
    expect(forgot.body.entities_forgotten).toBe(first.entity_ids.length);
    const second = await remember(stack, { namespace: ns, content: 'Tomas lives in Porto.' });
    expect(only(second.entity_ids, first.entity_ids)).toHaveLength(first.entity_ids.length); // new live entities
    const res = await stack.request<{ restored: boolean; entities_restored: number; entities_left_forgotten: string[] }>(
      'POST', `/v1/memories/${first.id}/restore`,
    );
    expect(res.body).toMatchObject({ restored: true, entities_restored: 0, entities_left_forgotten: [...first.entity_ids].sort() });
  });
});
