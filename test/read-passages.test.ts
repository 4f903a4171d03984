import { cosine } from '../core/embedding/hashing.js';
import { episodePassages } from '../core/ingest/passages.js';
import { storeEpisodeVectors } from '../core/memories/episodeVectors.js';
import { resolveRecipe } from '../core/retrieval/recipes.js';
import { collectSignals } from '../core/retrieval/search.js';
import { withReadClient } from '../core/retrieval/sql.js';
import type { ReadScope } from '../core/retrieval/scope.js';
import { embedder, insertEpisode, type ReadApi, useReadApi } from './support/graphFixtures.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'passages';
const QUERY = 'where is the sailing boat moored for the winter';
const BOAT = 'The sailing boat is moored in Split harbour for the winter.';
const FILLER = [
  'The quarterly budget review moved to Tuesday and finance wants the slides early.',
  'My sister started a pottery class on Thursdays and loves it.',
  'We repainted the kitchen cabinets a pale green colour last weekend.',
  'The new printer on the third floor keeps jamming on thick paper.',
  'Our team lunch is at the Thai place near the station this Friday.',
  'I finished the history book about the Hanseatic League on the train.',
  'The dentist moved my appointment to the first week of next month.',
];
const LONG = `${FILLER.slice(0, 4).join(' ')} ${BOAT} ${FILLER.slice(4).join(' ')}`;

describe('passage vectors of longer episodes', () => {
  let api: ReadApi;
  const ids: Record<string, string> = {};
  const store = async (key: string, content: string, extra: { namespace?: string; userId?: string; forgottenAt?: string } = {}) => {
    const namespace = extra.namespace ?? NS;
    ids[key] = await insertEpisode(api.deps.pool, { namespace, content, occurredAt: '2026-05-01T10:00:00Z', userId: extra.userId ?? 'u1', noEmbedding: true, forgottenAt: extra.forgottenAt });
    await storeEpisodeVectors(api.deps.pool, embedder, [{ id: ids[key], speaker: 'Ana', content }], { passages: true });
  };

  useReadApi(NOW, async (started) => {
    api = started;
    await store('long', LONG);
    for (const [i, text] of FILLER.entries()) await store(`short${i}`, text);
    await store('forgotten', LONG.replace('Split', 'Zadar'), { forgottenAt: '2026-06-01T00:00:00Z' });
    await store('elsewhere', LONG, { namespace: 'passages-other' });
    await api.deps.pool.query('ANALYZE episode_passage');
  });

  const vectorHits = async (scope: Partial<ReadScope>) => {
    const { lists } = await withReadClient(api.deps.readPool, (db) =>
      collectSignals(db, embedder, { namespace: NS, now: NOW, includeForgotten: false, ...scope }, { query: QUERY, kinds: ['episode'], recipe: resolveRecipe('vector_only') }),
    );
    return lists.find((l) => l.signal === 'vector' && l.kind === 'episode')?.hits ?? [];
  };
  const [q] = [embedder.embedOne(QUERY)];
  const ownSimilarity = cosine(q, embedder.embedOne(`Ana: ${LONG}`));
  const bestPassage = Math.max(...episodePassages({ speaker: 'Ana', content: LONG }).map((p) => cosine(q, embedder.embedOne(p))));

  it('stores one vector per passage and replaces them when the episode is embedded again', async () => {
    const count = async () => (await api.deps.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM episode_passage WHERE episode_id = $1', [ids.long])).rows[0].n;
    // The row says whether it has passages: a narrow search probes episode_passage only for those.
    const flagged = async (id: string) => (await api.deps.pool.query<{ has_passages: boolean }>('SELECT has_passages FROM episode WHERE id = $1', [id])).rows[0].has_passages;
    expect(await count()).toBe(episodePassages({ speaker: 'Ana', content: LONG }).length);
    expect(await flagged(ids.long)).toBe(true);
    expect(await flagged(ids.short1)).toBe(false);
    await storeEpisodeVectors(api.deps.pool, embedder, [{ id: ids.long, speaker: 'Ana', content: LONG }], { passages: true });
    expect(await count()).toBe(episodePassages({ speaker: 'Ana', content: LONG }).length);
    const shortened = { id: ids.short0, speaker: 'Ana', content: FILLER[0] };
    await storeEpisodeVectors(api.deps.pool, embedder, [shortened], { passages: true });
    expect((await api.deps.pool.query('SELECT 1 FROM episode_passage WHERE episode_id = $1', [ids.short0])).rowCount).toBe(0);
    expect(await flagged(ids.short0)).toBe(false);
    // EPISODE_PASSAGES=false embeds the episode alone and drops what was stored before; turning it back on restores them.
    await storeEpisodeVectors(api.deps.pool, embedder, [{ id: ids.long, speaker: 'Ana', content: LONG }], { passages: false });
    expect(await count()).toBe(0);
    expect(await flagged(ids.long)).toBe(false);
    await storeEpisodeVectors(api.deps.pool, embedder, [{ id: ids.long, speaker: 'Ana', content: LONG }], { passages: true });
    expect(await count()).toBe(episodePassages({ speaker: 'Ana', content: LONG }).length);
    expect(await flagged(ids.long)).toBe(true);
  });

  it.each([
    ['namespace-wide (HNSW walks)', {}],
    ['narrowed to a user (exact ranking)', { userId: 'u1' }],
  ])('scores a long episode by its closest passage, %s', async (_label, scope) => {
    expect(bestPassage).toBeGreaterThan(ownSimilarity + 0.1);
    const hits = await vectorHits(scope);
    expect(hits[0].id).toBe(ids.long);
    expect(hits[0].score).toBeCloseTo(bestPassage, 4);
    // Neither a forgotten episode's passages nor another namespace's reach the list.
    expect(hits.map((h) => h.id)).not.toContain(ids.forgotten);
    expect(hits.map((h) => h.id)).not.toContain(ids.elsewhere);
    expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
  });

  it('finds the sentence through POST /v1/search once, as the episode', async () => {
    const { status, body } = await api.request<{ results: Array<{ type: string; id: string; matched_by: string[] }> }>('POST', '/v1/search', {
      query: QUERY,
      namespace: NS,
      recipe: 'vector_only',
      kinds: ['episodes'],
    });
    expect(status).toBe(200);
    expect(body.results[0]).toMatchObject({ type: 'episode', id: ids.long, matched_by: ['vector'] });
    expect(body.results.filter((r) => r.id === ids.long)).toHaveLength(1);
  });
});
