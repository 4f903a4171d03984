import { resolveRecipe } from '../core/retrieval/recipes.js';
import type { ReadScope } from '../core/retrieval/scope.js';
import { collectSignals } from '../core/retrieval/search.js';
import { withReadClient } from '../core/retrieval/sql.js';
import { embedder, insertEntity, insertEpisode, type ReadApi, useReadApi } from './support/graphFixtures.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'scope-episodes';
const QUERY = 'what did Ana say about the sailing boat';

/**
 * A search narrowed to a user reads the scope's episodes once for the vector
 * and graph signals (core/retrieval/signals/scopeEpisodes.ts). The graph's
 * list of the named entity's episodes must be what it is when the vector
 * signal is off and the graph reads the episodes itself.
 */
describe('graph episodes from the scope read once', () => {
  let api: ReadApi;
  const ids: Record<string, string> = {};

  useReadApi(NOW, async (started) => {
    api = started;
    const pool = api.deps.pool;
    const ep = async (key: string, content: string, extra: { userId?: string; agentId?: string; speaker?: string; forgottenAt?: string; noEmbedding?: boolean } = {}) => {
      ids[key] = await insertEpisode(pool, { namespace: NS, content, occurredAt: '2026-05-01T10:00:00Z', userId: 'u1', ...extra });
    };
    await ep('boat', 'Ana said the sailing boat is moored in Split for the winter.');
    await ep('lunch', 'Ana and I had lunch at the Thai place near the station.');
    await ep('said', 'The boat needs new sails before the spring regatta.', { speaker: 'Ana' });
    await ep('saidElse', 'I finished the history book on the train.', { speaker: 'Ana' });
    await ep('noVector', 'Ana called about the sailing boat insurance.', { noEmbedding: true });
    await ep('forgotten', 'Ana sold the sailing boat.', { forgottenAt: '2026-06-01T00:00:00Z' });
    await ep('otherUser', 'Ana showed me her sailing boat in Split.', { userId: 'u2' });
    await ep('unrelated', 'The dentist moved my appointment to next month.');
    // An agent's own memory, with no user: a narrow scope keyed by neither the user's postings nor a user id.
    await ep('agentBoat', 'Ana wants the sailing boat painted blue.', { userId: undefined, agentId: 'a1' });
    await ep('agentSaid', 'The sailing club meets on Fridays.', { userId: undefined, agentId: 'a1', speaker: 'Ana' });
    await ep('agentOther', 'The boat show opens in March.', { userId: undefined, agentId: 'a1' });
    const linked = ['boat', 'lunch', 'noVector', 'forgotten', 'otherUser', 'agentBoat'].map((k) => ids[k]);
    await insertEntity(pool, { namespace: NS, name: 'Ana', scopeUser: 'u1', episodeIds: linked });
  });

  const graphEpisodes = async (recipe: ReturnType<typeof resolveRecipe>, narrowing: Pick<ReadScope, 'userId' | 'agentId'> = { userId: 'u1' }) => {
    const scope: ReadScope = { namespace: NS, ...narrowing, now: NOW, includeForgotten: false };
    const { lists } = await withReadClient(api.deps.readPool, (db) =>
      collectSignals(db, embedder, scope, { query: QUERY, kinds: ['episode', 'fact', 'entity'], recipe }),
    );
    return lists.find((l) => l.signal === 'graph' && l.kind === 'episode')?.hits ?? [];
  };

  it('ranks the same episodes with the same scores either way, and only the scope\'s', async () => {
    const shared = await graphEpisodes(resolveRecipe({ name: 'default', graph_speaker_turns: true }));
    const alone = await graphEpisodes(resolveRecipe({ name: 'default', weights: { vector: 0 }, graph_speaker_turns: true }));
    expect(shared.map((h) => h.id).sort()).toEqual([ids.boat, ids.lunch, ids.said, ids.saidElse, ids.noVector].sort());
    expect(shared.map((h) => h.id)).toEqual(alone.map((h) => h.id));
    shared.forEach((h, i) => expect(h.score).toBeCloseTo(alone[i].score, 9));
    // The turn that says what the query asks about leads; the one without an embedding still counts, by its words.
    expect(shared[0].id).toBe(ids.boat);
    expect(shared.find((h) => h.id === ids.noVector)!.score).toBeGreaterThan(0);
  });

  it("ranks an agent's scope, which has no user, the same way either way", async () => {
    const agent = { agentId: 'a1' };
    const shared = await graphEpisodes(resolveRecipe({ name: 'default', graph_speaker_turns: true }), agent);
    const alone = await graphEpisodes(resolveRecipe({ name: 'default', weights: { vector: 0 }, graph_speaker_turns: true }), agent);
    expect(shared.map((h) => h.id).sort()).toEqual([ids.agentBoat, ids.agentSaid].sort());
    expect(shared.map((h) => h.id)).toEqual(alone.map((h) => h.id));
    shared.forEach((h, i) => expect(h.score).toBeCloseTo(alone[i].score, 9));
  });

  it("takes only the episodes that mention the named entity unless the recipe asks for the turns they said", async () => {
    for (const weights of [{}, { vector: 0 }]) {
      const mentions = await graphEpisodes(resolveRecipe({ name: 'default', weights }));
      expect(mentions.map((h) => h.id).sort()).toEqual([ids.boat, ids.lunch, ids.noVector].sort());
      const withTurns = await graphEpisodes(resolveRecipe({ name: 'default', weights, graph_speaker_turns: true }));
      // The same mentions with the same scores, and Ana's own turns besides.
      expect(withTurns.filter((h) => h.id !== ids.said && h.id !== ids.saidElse)).toEqual(mentions);
    }
    expect(resolveRecipe('graph').graph_speaker_turns).toBe(true);
    expect(resolveRecipe('default').graph_speaker_turns).toBe(false);
  });
});
