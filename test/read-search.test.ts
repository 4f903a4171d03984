import { createApiKey } from '../core/auth/apiKeys.js';
import { fuse } from '../core/retrieval/fusion.js';
import { insertEntity, insertEpisode, insertFact, type ReadApi, useReadApi } from './support/graphFixtures.js';
import type { SearchResponse } from '../client/types.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'acme';

interface ErrorBody {
  error: { code: string; message: string; details: Array<{ field: string; message: string }> | null };
}

describe('POST /v1/search', () => {
  let api: ReadApi;
  const ids: Record<string, string> = {};

  useReadApi(NOW, async (started) => {
    api = started;
    const pool = api.deps.pool;
    const ep = (key: string, content: string, occurredAt: string, extra: Record<string, unknown> = {}) =>
      insertEpisode(pool, { namespace: NS, content, occurredAt, userId: 'u1', ...extra }).then((id) => (ids[key] = id));
    await ep('welding', 'Stefan works at Premex as a welding engineer on the robot line.', '2026-01-10T09:00:00Z');
    await ep('lasagna', 'We had lasagna for dinner at a small trattoria near the station.', '2025-06-12T19:00:00Z');
    await ep('budget', 'The quarterly budget review moved to Tuesday; finance wants the slides early.', '2026-06-01T08:00:00Z');
    await ep('hiking', 'I went hiking in the Dolomites with my sister Ana and we slept in a mountain hut.', '2023-08-05T10:00:00Z');
    await ep('garden', 'The tomatoes in the garden finally turned red after the heat wave.', '2026-05-20T07:00:00Z', { userId: 'u2' });
    await ep('secret', 'Zanzibar trip notes that the user asked us to forget.', '2026-02-02T10:00:00Z', { forgottenAt: '2026-03-01T00:00:00Z' });
    await ep('acmeEp', 'Stefan left Premex and now works at Acme on the sales team.', '2026-03-01T09:00:00Z');
    for (let i = 0; i < 30; i++) {
      await ep(`filler${i}`, `Filler note ${i}: the weekly sync covered calendars, tickets and printer toner number ${i}.`, `2026-04-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z`);
    }

    const stefan = await insertEntity(pool, { namespace: NS, name: 'Stefan', scopeUser: 'u1', episodeIds: [ids.welding, ids.acmeEp] });
    const premex = await insertEntity(pool, { namespace: NS, name: 'Premex', type: 'organization', scopeUser: 'u1', episodeIds: [ids.welding] });
    const acme = await insertEntity(pool, { namespace: NS, name: 'Acme', type: 'organization', scopeUser: 'u1', episodeIds: [ids.acmeEp] });
    const graz = await insertEntity(pool, { namespace: NS, name: 'Graz', type: 'place', scopeUser: 'u1' });
    const dolomites = await insertEntity(pool, { namespace: NS, name: 'Dolomites', type: 'place', scopeUser: 'u1', episodeIds: [ids.hiking] });
    const ghost = await insertEntity(pool, { namespace: NS, name: 'Ghostly Corp', type: 'organization', scopeUser: 'u1', forgottenAt: '2026-02-01T00:00:00Z' });
    Object.assign(ids, { stefan, premex, acme, graz, dolomites, ghost });
    const fact = (key: string, f: Parameters<typeof insertFact>[1]) => insertFact(pool, f).then((id) => (ids[key] = id));
    await fact('premexJob', {
      namespace: NS, scopeUser: 'u1', subjectId: stefan, predicate: 'works_at', objectId: premex, family: 'work',
      factText: 'Stefan works at Premex.', validFrom: '2026-01-10T09:00:00Z', invalidAt: '2026-03-01T09:00:00Z',
      expiredAt: '2026-03-01T09:05:00Z', episodeIds: [ids.welding],
    });
    await fact('acmeJob', {
      namespace: NS, scopeUser: 'u1', subjectId: stefan, predicate: 'works_at', objectId: acme, family: 'work',
      factText: 'Stefan works at Acme.', validFrom: '2026-03-01T09:00:00Z', episodeIds: [ids.acmeEp],
    });
    await fact('acmeCity', {
      namespace: NS, scopeUser: 'u1', subjectId: acme, predicate: 'located_in', objectId: graz, family: 'places',
      factText: 'Acme is located in Graz.',
    });
    await fact('hikeFact', {
      namespace: NS, scopeUser: 'u1', subjectId: stefan, predicate: 'visited', objectId: dolomites, family: 'places',
      factText: 'Stefan visited the Dolomites.', validFrom: '2023-08-05T00:00:00Z', episodeIds: [ids.hiking],
    });
    await fact('ghostFact', {
      namespace: NS, scopeUser: 'u1', subjectId: ghost, predicate: 'located_in', objectId: graz, family: 'places',
      factText: 'Ghostly Corp is located in Graz.',
    });
    // Reachable from Stefan only through the forgotten Ghostly Corp, as the object of both facts.
    ids.ghostPartner = await insertEntity(pool, { namespace: NS, name: 'Bob Vance', type: 'person', scopeUser: 'u1' });
    await fact('ghostInvestment', {
      namespace: NS, scopeUser: 'u1', subjectId: stefan, predicate: 'invested_in', objectId: ghost, family: 'work',
      factText: 'Stefan invested in Ghostly Corp.',
    });
    await fact('ghostPartnerJob', {
      namespace: NS, scopeUser: 'u1', subjectId: ids.ghostPartner, predicate: 'works_at', objectId: ghost, family: 'work',
      factText: 'Bob Vance works at Ghostly Corp.',
    });
  });


  const search = (body: Record<string, unknown>, key?: string) => api.request<SearchResponse & ErrorBody>('POST', '/v1/search', { namespace: NS, ...body }, key);

  it('keyword signal: full-text OR query ranks the turn sharing the most terms first', async () => {
    const { status, body } = await search({ query: 'lasagna dinner trattoria recipe', recipe: 'keyword_only' });
    expect(status).toBe(200);
    expect(body.results[0]).toMatchObject({ type: 'episode', id: ids.lasagna, matched_by: ['keyword'], episode_ids: [ids.lasagna] });
    expect(body.results[0].snippet).toContain('lasagna');
    expect(body.results[0].occurred_at).toBe('2025-06-12T19:00:00.000Z');
    // OR semantics: a query word absent from every document ("recipe") does not empty the result.
    expect(body.results.every((r) => r.matched_by.includes('keyword'))).toBe(true);
  });

  it('vector signal: nearest neighbours by embedding, tolerant of inflection', async () => {
    const { body } = await search({ query: 'welder engineering robots', recipe: 'vector_only', kinds: ['episodes'] });
    expect(body.results[0]).toMatchObject({ id: ids.welding, matched_by: ['vector'] });
    expect(body.results.length).toBeGreaterThan(5);
    const scores = body.results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('graph signal: named entity → its facts first, then facts two hops away', async () => {
    const { body } = await search({ query: 'Tell me about Stefan', recipe: 'graph', kinds: ['facts', 'entities'] });
    const facts = body.results.filter((r) => r.type === 'fact');
    const rank = (id: string) => facts.findIndex((r) => r.id === id);
    expect(rank(ids.acmeJob)).toBeGreaterThanOrEqual(0);
    expect(rank(ids.acmeCity)).toBeGreaterThan(rank(ids.acmeJob));
    expect(facts.find((r) => r.id === ids.acmeJob)?.matched_by).toContain('graph');
    expect(facts.find((r) => r.id === ids.acmeJob)?.episode_ids).toEqual([ids.acmeEp]);
    // Superseded and forgotten-entity facts are not reachable.
    expect(rank(ids.premexJob)).toBe(-1);
    expect(rank(ids.ghostFact)).toBe(-1);
    const entities = body.results.filter((r) => r.type === 'entity').map((r) => r.id);
    expect(entities[0]).toBe(ids.stefan);
    expect(entities).not.toContain(ids.ghost);
    // Nor does the walk pass through a forgotten entity that is a fact's object.
    expect(rank(ids.ghostInvestment)).toBe(-1);
    expect(entities).not.toContain(ids.ghostPartner);
  });

  it('graph signal matches entity names by trigram similarity (typos)', async () => {
    const { body } = await search({ query: 'trip to the Dolomittes', recipe: 'graph', kinds: ['entities'] });
    expect(body.results[0]?.id).toBe(ids.dolomites);
  });

  it('temporal signal: "in August 2023" ranks what happened then first', async () => {
    const { body } = await search({ query: 'what did we do in August 2023', kinds: ['episodes'] });
    expect(body.results[0].id).toBe(ids.hiking);
    expect(body.results[0].matched_by).toContain('temporal');
  });

  it('temporal signal over facts and episodes together answers (every parameter it binds is used)', async () => {
    const { status, body } = await search({ query: 'what did we do in August 2023', kinds: ['episodes', 'facts'] });
    expect(status).toBe(200);
    expect(body.results.find((r) => r.id === ids.hiking)?.matched_by).toContain('temporal');
  });

  it('temporal signal resolves relative times against as_of', async () => {
    const { body } = await search({ query: 'where did we eat last June', as_of: '2026-03-01T00:00:00Z', kinds: ['episodes'] });
    expect(body.results[0].id).toBe(ids.lasagna);
    expect(body.results[0].matched_by).toContain('temporal');
    // as_of hides what had not happened yet.
    expect(body.results.map((r) => r.id)).not.toContain(ids.budget);
  });

  it('fuses signals: rows found by several signals carry each of them', async () => {
    const { body } = await search({ query: 'Stefan welding engineer at Premex', kinds: ['episodes'], recipe: 'hybrid' });
    expect(body.results[0].id).toBe(ids.welding);
    expect(body.results[0].matched_by).toEqual(expect.arrayContaining(['vector', 'keyword', 'graph']));
    // The tuned default fuses the vector signal too (at a small weight).
    const tuned = await search({ query: 'Stefan welding engineer at Premex', kinds: ['episodes'] });
    expect(tuned.body.results[0]).toMatchObject({ id: ids.welding, matched_by: ['keyword', 'vector', 'graph'] });
    // keyword_only is what it says.
    const keywordOnly = await search({ query: 'Stefan welding engineer at Premex', kinds: ['episodes'], recipe: 'keyword_only' });
    expect(keywordOnly.body.results[0]).toMatchObject({ id: ids.welding, matched_by: ['keyword'] });
  });

  it('as_of: facts valid at that instant, as recorded now', async () => {
    const now = await search({ query: 'Stefan works at', kinds: ['facts'], recipe: 'keyword_only' });
    expect(now.body.results.map((r) => r.id)).toContain(ids.acmeJob);
    expect(now.body.results.map((r) => r.id)).not.toContain(ids.premexJob);
    const then = await search({ query: 'Stefan works at', kinds: ['facts'], recipe: 'keyword_only', as_of: '2026-02-01T00:00:00Z' });
    expect(then.body.results.map((r) => r.id)).toContain(ids.premexJob);
    expect(then.body.results.map((r) => r.id)).not.toContain(ids.acmeJob);
  });

  it('scopes episodes by user_id', async () => {
    const { body } = await search({ query: 'tomatoes garden heat', user_id: 'u1' });
    expect(body.results.map((r) => r.id)).not.toContain(ids.garden);
    const u2 = await search({ query: 'tomatoes garden heat', user_id: 'u2' });
    expect(u2.body.results.map((r) => r.id)).toEqual([ids.garden]);
  });

  it('never returns forgotten rows unless an operator asks for them', async () => {
    const hidden = await search({ query: 'Zanzibar trip notes' });
    expect(hidden.body.results.map((r) => r.id)).not.toContain(ids.secret);
    const shown = await search({ query: 'Zanzibar trip notes', include_forgotten: true });
    expect(shown.body.results.map((r) => r.id)).toContain(ids.secret);
    const agent = await createApiKey(api.deps.pool, { role: 'agent', namespace: NS });
    const denied = await search({ query: 'Zanzibar trip notes', include_forgotten: true }, agent.key);
    expect(denied.status).toBe(403);
    const allowed = await search({ query: 'lasagna' }, agent.key);
    expect(allowed.status).toBe(200);
  });

  it('filters by kinds', async () => {
    const { body } = await search({ query: 'Stefan Premex Acme', kinds: ['entities'] });
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.every((r) => r.type === 'entity')).toBe(true);
  });

  it.each([
    [{ query: 'x', k: 0 }, 'k'],
    [{ query: 'x', k: 101 }, 'k'],
    [{ query: 'x', k: '5' }, 'k'],
    [{ query: 'x', k: 2.5 }, 'k'],
    [{ query: '' }, 'query'],
    [{ query: '   ' }, 'query'],
    [{}, 'query'],
    [{ query: 'x', recipe: 'nope' }, 'recipe'],
    [{ query: 'x', recipe: { weights: { vector: -1 } } }, 'recipe'],
    [{ query: 'x', as_of: 'yesterday' }, 'as_of'],
    [{ query: 'x', as_of: '2026-13-45T00:00:00Z' }, 'as_of'],
    [{ query: 'x', kinds: ['bogus'] }, 'kinds.0'],
    [{ query: 'x', kinds: [] }, 'kinds'],
    [{ query: 'x', unknown_field: 1 }, '(body)'],
  ])('400 naming the field for %j', async (body, field) => {
    const res = await api.request<ErrorBody>('POST', '/v1/search', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_input');
    const fields = (res.body.error.details ?? []).map((d) => d.field);
    expect(fields.some((f) => f === field || f.startsWith(`${field}.`) || (field === 'recipe' && f.startsWith('recipe')))).toBe(true);
  });

  it('treats SQL metacharacters, tsquery syntax, unicode, emoji, NUL and 10 kB queries as plain text', async () => {
    const count = async () => (await api.deps.pool.query<{ n: number }>('SELECT (SELECT count(*) FROM episode) + (SELECT count(*) FROM fact) AS n')).rows[0].n;
    const before = await count();
    const hostile = [
      "'; DROP TABLE episode; --",
      "Robert'); DELETE FROM fact WHERE ('1'='1",
      "lasagna' | 'x' & !'y' <-> :* \\",
      'ünïcödé 日本語のクエリ 🚀🔥 lasagna',
      'emoji only 🍝🍝🍝',
      'null\u0000byte lasagna',
      // Letters to JavaScript (CJK extension G, private use) that PostgreSQL 15's parser keeps none of: the keyword
      // signal once left an unused parameter in the statement, and the search answered 500 (found by fuzz-routes).
      '\u{318B7}\u{318B8}',
      '\u{4165B}\u{AB074}\u{318B7}',
      '%_ % _ \\% lasagna',
      `${'lasagna dinner '.repeat(700)}`.slice(0, 10_240),
    ];
    for (const query of hostile) {
      const res = await search({ query });
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body.results)).toBe(true);
    }
    const unicode = await search({ query: 'ünïcödé 日本語のクエリ 🚀🔥 lasagna', recipe: 'keyword_only' });
    expect(unicode.body.results[0].id).toBe(ids.lasagna);
    expect(await count()).toBe(before);
  });

  it('rejects a query over the size limit with 400', async () => {
    const res = await api.request<ErrorBody>('POST', '/v1/search', { query: 'a'.repeat(20_001) });
    expect(res.status).toBe(400);
    expect(res.body.error.details?.[0].field).toBe('query');
  });

  it('accepts recipe overrides', async () => {
    const { status, body } = await search({ query: 'lasagna', recipe: { name: 'default', weights: { graph: 0, temporal: 0 }, depths: { vector: 5 } } });
    expect(status).toBe(200);
    expect(body.results[0].id).toBe(ids.lasagna);
  });
});

describe('weighted reciprocal rank fusion', () => {
  const recipe = { weights: { vector: 1, keyword: 1, graph: 0.5, temporal: 0 }, rrf_k: 60 };
  it('adds weight / (k + rank) per list and ranks agreement first', () => {
    const fused = fuse(
      [
        { signal: 'vector', kind: 'episode', hits: [{ id: 'a', score: 0.9 }, { id: 'b', score: 0.8 }] },
        { signal: 'keyword', kind: 'episode', hits: [{ id: 'b', score: 3 }, { id: 'c', score: 1 }] },
        { signal: 'graph', kind: 'fact', hits: [{ id: 'f', score: 1 }] },
        { signal: 'temporal', kind: 'episode', hits: [{ id: 'c', score: 1 }] },
      ],
      recipe,
    );
    expect(fused.map((f) => `${f.kind}:${f.id}`)).toEqual(['episode:b', 'episode:a', 'episode:c', 'fact:f']);
    expect(fused[0].score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[0].matchedBy).toEqual(['vector', 'keyword']);
    expect(fused[3].score).toBeCloseTo(0.5 / 61, 12);
    // A zero-weight signal contributes nothing, not even matched_by.
    expect(fused[2].matchedBy).toEqual(['keyword']);
  });
});
