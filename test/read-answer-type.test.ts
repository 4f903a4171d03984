import { loadConversationLinks } from '../core/retrieval/conversation.js';
import { withReadClient } from '../core/retrieval/sql.js';
import { insertEntity, insertEpisode, insertFact, type ReadApi, useReadApi } from './support/graphFixtures.js';
import type { SearchResponse } from '../client/types.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'answer-type';
const scope = { namespace: NS, now: NOW, includeForgotten: false };


describe('answer-type re-ranking (real Postgres)', () => {
  let api: ReadApi;
  const ids: Record<string, string> = {};

  useReadApi(NOW, async (started) => {
    api = started;
    const say = (content: string, minute: number) =>
      insertEpisode(api.deps.pool, { namespace: NS, speaker: 'Kevin', content, occurredAt: new Date(Date.parse('2026-06-01T08:00:00Z') + minute * 60_000).toISOString() });
    ids.lisbon = await say('Kevin spent the holiday in Lisbon.', 0);
    ids.home = await say('Kevin spent the holiday week at home, a quiet holiday week with Kevin and the holiday cat.', 10);
    ids.atlantis = await say('Kevin spent the holiday in Atlantis.', 20);
    ids.kevin = await insertEntity(api.deps.pool, { namespace: NS, name: 'Kevin', type: 'person', episodeIds: [ids.lisbon, ids.home, ids.atlantis] });
    const lisbon = await insertEntity(api.deps.pool, { namespace: NS, name: 'Lisbon', type: 'place', episodeIds: [ids.lisbon] });
    // A forgotten place no longer types the turn that mentioned it.
    await insertEntity(api.deps.pool, { namespace: NS, name: 'Atlantis', type: 'place', episodeIds: [ids.atlantis], forgottenAt: '2026-06-10T00:00:00Z' });
    ids.visited = await insertFact(api.deps.pool, { namespace: NS, subjectId: ids.kevin, predicate: 'visited', objectId: lisbon, factText: 'Kevin visited Lisbon', episodeIds: [ids.lisbon] });
    ids.likes = await insertFact(api.deps.pool, { namespace: NS, subjectId: ids.kevin, predicate: 'likes', value: 'quiet holidays', factText: 'Kevin likes quiet holidays', episodeIds: [ids.home] });
  });

  const load = (answerTypes: Array<'place' | 'person'>, namedEntityIds: string[] = [], subjectIds: string[] = []) =>
    withReadClient(api.deps.readPool, (db) =>
      loadConversationLinks(
        db,
        scope,
        { episodeIds: [ids.lisbon, ids.home, ids.atlantis], factIds: [ids.visited, ids.likes], sourceEpisodeIds: [], sourceFactIds: [] },
        { speakerNames: [], answerTypes, namedEntityIds, subjectIds },
      ),
    );

  it('flags the turns that mention, and the facts whose object is, an entity of the expected type', async () => {
    const links = await load(['place']);
    expect(links.episodes.get(ids.lisbon)?.answerTyped).toBe(true);
    expect(links.episodes.get(ids.home)?.answerTyped).toBe(false);
    expect(links.episodes.get(ids.atlantis)?.answerTyped).toBe(false);
    expect([...links.answerTypedFacts]).toEqual([ids.visited]);
    // The subject's type does not count: every fact about Kevin has a person as subject.
    expect([...(await load(['person'])).answerTypedFacts]).toEqual([]);
  });

  it('does not count the entities the query names: asking who Kevin met, a turn naming Kevin is no answer', async () => {
    expect((await load(['person'])).episodes.get(ids.home)?.answerTyped).toBe(true);
    const named = await load(['person'], [ids.kevin]);
    expect([...named.episodes.values()].some((e) => e.answerTyped)).toBe(false);
  });

  it('flags the typed facts whose subject the query names: direct answers', async () => {
    const direct = await load(['place'], [ids.kevin], [ids.kevin]);
    expect([...direct.answerTypedFacts]).toEqual([ids.visited]);
    expect([...direct.namedSubjectFacts]).toEqual([ids.visited]);
    // Another subject, or none asked for: typed, not direct.
    expect((await load(['place'], [], [ids.visited])).namedSubjectFacts.size).toBe(0);
    expect((await load(['place'])).namedSubjectFacts.size).toBe(0);
    // No answer type: no fact is a direct answer, however it is named.
    expect((await load([], [ids.kevin], [ids.kevin])).namedSubjectFacts.size).toBe(0);
  });

  it('flags nothing when the question asks for no entity type', async () => {
    const links = await load([]);
    expect([...links.episodes.values()].some((e) => e.answerTyped)).toBe(false);
    expect(links.answerTypedFacts.size).toBe(0);
  });

  it('ranks the turn naming a place first for a "where" question once the boost is on', async () => {
    const search = (recipe: unknown) =>
      api.request<SearchResponse>('POST', '/v1/search', { namespace: NS, query: 'Where did Kevin spend the holiday week?', kinds: ['episodes'], recipe });
    const position = (body: SearchResponse, id: string) => body.results.findIndex((r) => r.id === id);
    const off = await search({ answer_type_boost: 0 });
    expect(off.status).toBe(200);
    // Without the boost, the turn with more of the query's words wins.
    expect(position(off.body, ids.home)).toBeLessThan(position(off.body, ids.lisbon));
    const on = await search({ answer_type_boost: 5 });
    expect(on.status).toBe(200);
    expect(position(on.body, ids.lisbon)).toBe(0);
  });

  it('rejects an out-of-range answer_type_boost with the field', async () => {
    const res = await api.request<{ error: { details?: unknown } }>('POST', '/v1/search', { namespace: NS, query: 'where', recipe: { answer_type_boost: 6 } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('answer_type_boost');
  });
});
