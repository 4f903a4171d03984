import { loadConversationLinks } from '../core/retrieval/conversation.js';
import { withReadClient } from '../core/retrieval/sql.js';
import { insertEntity, insertEpisode, insertFact, type ReadApi, useReadApi } from './support/graphFixtures.js';
import type { SearchResponse } from '../client/types.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'conversation';
const at = (minute: number) => new Date(Date.parse('2026-06-01T08:00:00Z') + minute * 60_000).toISOString();


describe('conversation-aware search (real Postgres)', () => {
  let api: ReadApi;
  const ids: Record<string, string> = {};
  const say = async (key: string, speaker: string, content: string, minute: number, extra: { userId?: string; runId?: string; forgottenAt?: string } = {}) => {
    ids[key] = await insertEpisode(api.deps.pool, { namespace: NS, speaker, content, occurredAt: at(minute), runId: extra.runId ?? 'chat-1', userId: extra.userId, forgottenAt: extra.forgottenAt });
  };

  useReadApi(NOW, async (started) => {
    api = started;
    const akib = await insertEntity(api.deps.pool, { namespace: NS, name: 'Akib', type: 'person' });
    await say('hello', 'Akib', 'Good morning! Just woke up.', 0);
    await say('question', 'Emi', 'What are you having for breakfast today?', 1);
    await say('answer', 'Akib', 'Probably just some eggs and oatmeal, nothing fancy.', 2);
    await say('later', 'Emi', 'I am going to the gym after work.', 3);
    // Not the same exchange: another run at the same minute, a turn hours later, a forgotten turn.
    await say('otherRun', 'Akib', 'Our standup moved to ten.', 1, { runId: 'chat-2' });
    await say('otherUser', 'Akib', 'Booked the dentist for Monday.', 1.5, { userId: 'someone-else' });
    await say('hoursLater', 'Akib', 'The train was late again tonight.', 240);
    await say('forgotten', 'Emi', 'Pancakes sound better to me.', 2.5, { forgottenAt: '2026-06-10T00:00:00Z' });
    ids.fact = await insertFact(api.deps.pool, { namespace: NS, subjectId: akib, predicate: 'prefers', factText: 'Akib prefers a light breakfast', episodeIds: [ids.answer] });
    for (let i = 0; i < 12; i++) await say(`filler${i}`, 'Emi', `Filler message number ${i} about the weather forecast.`, 1000 + i * 100);
  });

  it("links each turn to its neighbours in the same conversation, within an hour, and flags the named speaker's turns", async () => {
    const scope = { namespace: NS, now: NOW, includeForgotten: false };
    const links = await withReadClient(api.deps.readPool, (db) =>
      loadConversationLinks(db, scope, { episodeIds: [ids.question, ids.answer, ids.hoursLater, ids.later], factIds: [], sourceEpisodeIds: [ids.question, ids.answer, ids.hoursLater], sourceFactIds: [] }, { speakerNames: ['akib'], answerTypes: [], namedEntityIds: [], subjectIds: [] }),
    );
    expect(links.episodes.get(ids.question)).toEqual({ answerTyped: false, namedSpeaker: false, previous: ids.hello, next: ids.answer });
    // The forgotten turn between them is skipped; the other run's and the other user's turns never count.
    expect(links.episodes.get(ids.answer)).toEqual({ answerTyped: false, namedSpeaker: true, previous: ids.question, next: ids.later });
    expect(links.episodes.get(ids.hoursLater)).toEqual({ answerTyped: false, namedSpeaker: true, previous: null, next: null });
    // As of a moment between two turns, the later one has not happened yet.
    const before = await withReadClient(api.deps.readPool, (db) =>
      loadConversationLinks(db, { ...scope, asOf: new Date(at(2.5)) }, { episodeIds: [ids.answer], factIds: [], sourceEpisodeIds: [ids.answer], sourceFactIds: [] }, { speakerNames: [], answerTypes: [], namedEntityIds: [], subjectIds: [] }),
    );
    expect(before.episodes.get(ids.answer)).toEqual({ answerTyped: false, namedSpeaker: false, previous: ids.question, next: null });
    // Not a source: its speaker is checked, its neighbours are not looked up.
    expect(links.episodes.get(ids.later)).toEqual({ answerTyped: false, namedSpeaker: false, previous: null, next: null });
  });

  it('links a candidate fact to the turn it came from, and that turn to its neighbours', async () => {
    const scope = { namespace: NS, now: NOW, includeForgotten: false };
    const links = await withReadClient(api.deps.readPool, (db) =>
      loadConversationLinks(db, scope, { episodeIds: [], factIds: [], sourceEpisodeIds: [], sourceFactIds: [ids.fact] }, { speakerNames: [], answerTypes: [], namedEntityIds: [], subjectIds: [] }),
    );
    expect(links.factEpisodes.get(ids.fact)).toEqual([ids.answer]);
    expect(links.episodes.get(ids.answer)).toEqual({ answerTyped: false, namedSpeaker: false, previous: ids.question, next: ids.later });
  });

  it('finds the answer that shares no word with the query through the question before it', async () => {
    const search = (recipe: unknown) =>
      api.request<SearchResponse>('POST', '/v1/search', { namespace: NS, query: 'What does Akib eat for breakfast?', kinds: ['episodes'], recipe });
    const on = await search('default');
    expect(on.status).toBe(200);
    const answer = on.body.results.find((r) => r.id === ids.answer);
    expect(answer).toBeDefined();
    expect(on.body.results.map((r) => r.id)).not.toContain(ids.forgotten);
    const off = await search({ neighbour_weight: 0 });
    expect(off.status).toBe(200);
    const position = (body: SearchResponse) => body.results.findIndex((r) => r.id === ids.answer);
    expect(position(on.body)).toBeLessThan(position(off.body) === -1 ? Infinity : position(off.body));
  });

  it('rejects out-of-range conversation knobs with the field', async () => {
    const res = await api.request<{ error: { details?: unknown } }>('POST', '/v1/search', { namespace: NS, query: 'breakfast', recipe: { neighbour_weight: 2 } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('neighbour_weight');
  });
});
