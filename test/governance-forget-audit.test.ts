import { createApiKey } from '../core/auth/apiKeys.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';
import type { SearchResponse } from '../client/types.js';

const NS = 'gov-forget';

interface Fact {
  id: string;
  fact_text: string;
  object: { id: string; name: string } | null;
}
interface AuditPage {
  entries: Array<{ id: string; action: string; actor: string; target_type: string; target_id: string; request_id: string | null; created_at: string }>;
  next_cursor: string | null;
}

describe('forget/restore of facts and entities, sensitivity, and the audit route', () => {
  let stack: TestStack;
  let agent: { id: string; key: string };
  let operator: { id: string; key: string };
  let works: Fact;
  let brightwave: string;

  beforeAll(async () => {
    stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' } });
    await stack.deps.pool.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [NS]);
    agent = await createApiKey(stack.deps.pool, { role: 'agent', namespace: NS });
    operator = await createApiKey(stack.deps.pool, { role: 'operator', namespace: NS });
    await remember(stack, { namespace: NS, user_id: 'lena', content: 'Lena works at Brightwave. Lena lives in Trondheim.' });
    const facts = (await stack.request<{ facts: Fact[] }>('GET', `/v1/facts?namespace=${NS}&user_id=lena`, undefined, agent.key)).body.facts;
    works = facts.find((f) => /Brightwave/.test(f.fact_text))!;
    expect(works.object?.name).toBe('Brightwave');
    brightwave = works.object!.id;
  });
  afterAll(async () => {
    await stack.stop();
  });

  const factIds = async (query = '', key = agent.key) =>
    (await stack.request<{ facts: Fact[] }>('GET', `/v1/facts?namespace=${NS}&user_id=lena${query}`, undefined, key)).body.facts.map((f) => f.id);
  const searchIds = async (query: string) =>
    (await stack.request<SearchResponse>('POST', '/v1/search', { namespace: NS, user_id: 'lena', query, k: 20 }, agent.key)).body.results.map((r) => r.id);
  const contextFactIds = async (query: string) =>
    (await stack.request<{ facts: Array<{ id: string }> }>('GET', `/v1/context?namespace=${NS}&user_id=lena&query=${encodeURIComponent(query)}`, undefined, agent.key)).body.facts.map((f) => f.id);

  it('a forgotten fact is gone from facts, search and context, back on restore; operators read it with include_forgotten', async () => {
    expect(await searchIds('Lena works at Brightwave')).toContain(works.id);
    expect(await contextFactIds('where does Lena work')).toContain(works.id);

    const forgot = await stack.request<{ id: string; forgotten_at: string }>('POST', `/v1/facts/${works.id}/forget`, undefined, agent.key);
    expect(forgot.status).toBe(200);
    expect(await factIds()).not.toContain(works.id);
    expect(await searchIds('Lena works at Brightwave')).not.toContain(works.id);
    expect(await contextFactIds('where does Lena work')).not.toContain(works.id);
    expect(await factIds('&include_forgotten=true', operator.key)).toContain(works.id);
    expect((await stack.request('GET', `/v1/facts?namespace=${NS}&include_forgotten=true`, undefined, agent.key)).status).toBe(403);

    expect((await stack.request('POST', `/v1/facts/${works.id}/restore`, undefined, agent.key)).status).toBe(403);
    const restored = await stack.request('POST', `/v1/facts/${works.id}/restore`, undefined, operator.key);
    expect(restored).toEqual({ status: 200, body: { id: works.id, restored: true } });
    expect(await factIds()).toContain(works.id);
    expect(await searchIds('Lena works at Brightwave')).toContain(works.id);
    // Restoring a live fact changes nothing.
    expect((await stack.request('POST', `/v1/facts/${works.id}/restore`, undefined, operator.key)).body).toEqual({ id: works.id, restored: false });
    expect((await stack.request('POST', '/v1/facts/00000000-0000-4000-8000-000000000000/forget', undefined, agent.key)).status).toBe(404);
  });

  it('a forgotten entity is gone from entity reads and hides its facts, back on restore', async () => {
    const forgot = await stack.request('POST', `/v1/entities/${brightwave}/forget`, undefined, agent.key);
    expect(forgot.status).toBe(200);
    expect((await stack.request('GET', `/v1/entities/${brightwave}?namespace=${NS}`, undefined, agent.key)).status).toBe(404);
    const listed = await stack.request<{ entities: Array<{ id: string }> }>('GET', `/v1/entities?namespace=${NS}&q=Brightwave`, undefined, agent.key);
    expect(listed.body.entities.map((e) => e.id)).not.toContain(brightwave);
    expect(await factIds()).not.toContain(works.id);
    expect(await searchIds('Brightwave')).not.toContain(brightwave);
    expect(await searchIds('Lena works at Brightwave')).not.toContain(works.id);
    expect(await contextFactIds('where does Lena work')).not.toContain(works.id);
    expect((await stack.request('GET', `/v1/entities/${brightwave}?namespace=${NS}&include_forgotten=true`, undefined, operator.key)).status).toBe(200);

    expect((await stack.request('POST', `/v1/entities/${brightwave}/restore`, undefined, agent.key)).status).toBe(403);
    expect((await stack.request('POST', `/v1/entities/${brightwave}/restore`, undefined, operator.key)).body).toEqual({ id: brightwave, restored: true });
    expect((await stack.request('GET', `/v1/entities/${brightwave}?namespace=${NS}`, undefined, agent.key)).status).toBe(200);
    expect(await factIds()).toContain(works.id);
    expect(await searchIds('Lena works at Brightwave')).toContain(works.id);
  });

  it('sensitivity cannot change: 409', async () => {
    const res = await stack.request<{ error: { code: string } }>('PATCH', `/v1/facts/${works.id}`, { sensitivity: 'public' }, operator.key);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
  });

  it('GET /v1/audit filters by target, actor and time, newest first, page by page; operators only', async () => {
    expect((await stack.request('GET', `/v1/audit?namespace=${NS}`, undefined, agent.key)).status).toBe(403);
    const ofFact = await stack.request<AuditPage>('GET', `/v1/audit?namespace=${NS}&target_type=fact&target_id=${works.id}`, undefined, operator.key);
    expect(ofFact.status).toBe(200);
    const actions = ofFact.body.entries.map((e) => e.action);
    expect(actions.slice(0, 2)).toEqual(['fact.restored', 'fact.forgotten']);
    expect(actions[actions.length - 1]).toBe('fact.created');
    expect(ofFact.body.entries.every((e) => e.target_id === works.id)).toBe(true);
    expect(ofFact.body.entries[0]).toMatchObject({ actor: `key:${operator.id}`, request_id: expect.any(String) });

    const byAgent = await stack.request<AuditPage>('GET', `/v1/audit?namespace=${NS}&actor=key:${agent.id}`, undefined, operator.key);
    expect(byAgent.body.entries.map((e) => e.action).sort()).toEqual(['entity.forgotten', 'fact.forgotten']);

    // Paging: one entry at a time walks the same list, no entry twice.
    const all = (await stack.request<AuditPage>('GET', `/v1/audit?namespace=${NS}&limit=500`, undefined, operator.key)).body.entries;
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: AuditPage = (await stack.request<AuditPage>('GET', `/v1/audit?namespace=${NS}&limit=3${cursor ? `&cursor=${cursor}` : ''}`, undefined, operator.key)).body;
      walked.push(...page.entries.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(walked).toEqual(all.map((e) => e.id));
    expect(walked.map(Number)).toEqual([...walked.map(Number)].sort((a, b) => b - a));

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await stack.request<AuditPage>('GET', `/v1/audit?namespace=${NS}&since=${future}`, undefined, operator.key)).body.entries).toEqual([]);
    expect((await stack.request('GET', `/v1/audit?namespace=${NS}&cursor=abc`, undefined, operator.key)).status).toBe(400);
    expect((await stack.request('GET', `/v1/audit?namespace=elsewhere`, undefined, operator.key)).status).toBe(403);
  });
});
