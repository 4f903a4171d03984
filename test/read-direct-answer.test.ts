import { insertEntity, insertEpisode, insertFact, type ReadApi, useReadApi } from './support/graphFixtures.js';
import type { SearchResponse } from '../client/types.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'direct-answer';
const NS_PLACES = 'direct-answer-places';


// "Where does Ana work?" over a conversation where Ana also says where Carla works: the fact about Ana answers it;
// Ana's turn about Carla has the speaker boost and names a company, so it outranked that fact before direct answers.
describe('direct answers in search (real Postgres)', () => {
  let api: ReadApi;
  const ids: Record<string, string> = {};

  useReadApi(NOW, async (started) => {
    api = started;
    const db = api.deps.pool;
    const say = (speaker: string, content: string, minute: number) =>
      insertEpisode(db, { namespace: NS, userId: 'ana', speaker, content, occurredAt: new Date(Date.parse('2026-06-01T08:00:00Z') + minute * 60_000).toISOString() });
    ids.lisbon = await say('Ana', 'I moved to Lisbon in spring.', 0);
    ids.job = await say('Bob', 'Nice! How is the new job going?', 1);
    ids.globex = await say('Ana', 'I work at Globex since last month.', 2);
    ids.carlaQuestion = await say('Bob', 'And Carla?', 3);
    ids.carla = await say('Ana', 'Carla works at Initech as a nurse.', 4);
    const ana = await insertEntity(db, { namespace: NS, name: 'Ana', type: 'person', episodeIds: [ids.lisbon, ids.globex] });
    const carla = await insertEntity(db, { namespace: NS, name: 'Carla', type: 'person', episodeIds: [ids.carlaQuestion, ids.carla] });
    const globex = await insertEntity(db, { namespace: NS, name: 'Globex', type: 'organization', episodeIds: [ids.globex] });
    const initech = await insertEntity(db, { namespace: NS, name: 'Initech', type: 'organization', episodeIds: [ids.carla] });
    const lisbon = await insertEntity(db, { namespace: NS, name: 'Lisbon', type: 'place', episodeIds: [ids.lisbon] });
    ids.anaWorks = await insertFact(db, { namespace: NS, subjectId: ana, predicate: 'works_at', objectId: globex, factText: 'Ana works at Globex since last month.', episodeIds: [ids.globex] });
    ids.anaLives = await insertFact(db, { namespace: NS, subjectId: ana, predicate: 'lives_in', objectId: lisbon, factText: 'Ana lives in Lisbon.', episodeIds: [ids.lisbon] });
    ids.carlaWorks = await insertFact(db, { namespace: NS, subjectId: carla, predicate: 'works_at', objectId: initech, factText: 'Carla works at Initech.', episodeIds: [ids.carla] });

    // As `npm start` met it: Ana's own turns name her and a place, so they have the speaker boost, her name's rare
    // word and, while "where" asked for a place too, the answer type; the fact of where she works had only the last two.
    const sayHere = (content: string, minute: number) =>
      insertEpisode(db, { namespace: NS_PLACES, userId: 'ana', speaker: 'Ana', content, occurredAt: new Date(Date.parse('2026-06-01T08:00:00Z') + minute * 60_000).toISOString() });
    ids.hereWork = await sayHere('I work at Globex since last month.', 0);
    ids.hereLives = await sayHere('Ana lives in Lisbon.', 1);
    ids.hereMoved = await sayHere('Ana moved to Lisbon in March.', 2);
    const anaHere = await insertEntity(db, { namespace: NS_PLACES, name: 'Ana', type: 'person', episodeIds: [ids.hereWork, ids.hereLives, ids.hereMoved] });
    const globexHere = await insertEntity(db, { namespace: NS_PLACES, name: 'Globex', type: 'organization', episodeIds: [ids.hereWork] });
    const lisbonHere = await insertEntity(db, { namespace: NS_PLACES, name: 'Lisbon', type: 'place', episodeIds: [ids.hereLives, ids.hereMoved] });
    ids.hereWorksFact = await insertFact(db, { namespace: NS_PLACES, subjectId: anaHere, predicate: 'works_at', objectId: globexHere, factText: 'Ana works at Globex since last month.', episodeIds: [ids.hereWork] });
    ids.hereLivesFact = await insertFact(db, { namespace: NS_PLACES, subjectId: anaHere, predicate: 'lives_in', objectId: lisbonHere, factText: 'Ana lives in Lisbon as of March.', episodeIds: [ids.hereLives, ids.hereMoved] });
  });

  const search = async (recipe: unknown) => {
    const res = await api.request<SearchResponse>('POST', '/v1/search', { namespace: NS, query: 'where does Ana work', kinds: ['episodes', 'facts'], recipe });
    expect(res.status).toBe(200);
    return res.body.results.map((r) => r.id);
  };

  it("ranks the fact that answers the question above the named person's turn about someone else", async () => {
    const without = await search({ name: 'default', direct_answer_boost: 0 });
    expect(without.indexOf(ids.carla)).toBeLessThan(without.indexOf(ids.anaWorks));
    const ranked = await search('default');
    expect(ranked.indexOf(ids.anaWorks)).toBeLessThan(ranked.indexOf(ids.carla));
    // Carla's fact names a company too, but it is not about Ana: it gains nothing over her.
    expect(ranked.indexOf(ids.anaWorks)).toBeLessThan(ranked.indexOf(ids.carlaWorks));
  });

  it('where someone works is an organization: her turns about where she lives no longer lead', async () => {
    const ask = async (query: string) =>
      (await api.request<SearchResponse>('POST', '/v1/search', { namespace: NS_PLACES, query, kinds: ['episodes', 'facts'] })).body.results.map((r) => r.id);
    const work = await ask('where does Ana work');
    expect(work[0]).toBe(ids.hereWorksFact);
    // Her turn that says where she works comes before the ones that only say where she lives (it came last before).
    for (const place of [ids.hereMoved, ids.hereLivesFact]) expect(work.indexOf(ids.hereWork)).toBeLessThan(work.indexOf(place));
    // Asked where she lives, the places lead.
    const lives = await ask('where does Ana live');
    expect(lives.slice(0, 3).sort()).toEqual([ids.hereLives, ids.hereMoved, ids.hereLivesFact].sort());
  });

  it('rejects an out-of-range direct_answer_boost with the field', async () => {
    const res = await api.request<{ error: { details?: unknown } }>('POST', '/v1/search', { namespace: NS, query: 'where', recipe: { direct_answer_boost: 6 } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('direct_answer_boost');
  });
});
