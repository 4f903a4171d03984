import { resolveRecipe } from '../core/retrieval/recipes.js';
import type { ReadScope } from '../core/retrieval/scope.js';
import { collectSignals } from '../core/retrieval/search.js';
import { withReadClient } from '../core/retrieval/sql.js';
import { embedder, insertEntity, insertEpisode, insertFact, type ReadApi, useReadApi } from './support/graphFixtures.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'user_vector_rank';
const QUERY = 'what did Ana say about the sailing boat';

/**
 * A search narrowed to a user ranks the user's episodes exactly (no HNSW walk): the list must be the table's rows
 * ordered by distance, equal distances by id. Repeated texts have identical embeddings, so ties are common; without
 * the id they came back in the scan's physical order.
 */
describe("a user's episodes ranked by distance for a search", () => {
  let api: ReadApi;

  useReadApi(NOW, async (started) => {
    api = started;
    const pool = api.deps.pool;
    const texts = ['Ana said the sailing boat is moored in Split.', 'Ana and I had lunch near the station.', 'The dentist moved my appointment.'];
    // Each text three times (ties), among another user's episodes.
    for (let i = 0; i < 9; i++) await insertEpisode(pool, { namespace: NS, content: texts[i % 3], occurredAt: '2026-05-01T10:00:00Z', userId: 'u1' });
    for (let i = 0; i < 5; i++) await insertEpisode(pool, { namespace: NS, content: texts[i % 3], occurredAt: '2026-05-01T10:00:00Z', userId: 'u2' });
    // The same for facts: each statement three times in u1's scope, twice in u2's.
    const statements = ['Ana owns a sailing boat.', 'Ana likes lunch near the station.', 'The dentist is on Elm Street.'];
    for (const user of ['u1', 'u2']) {
      const ana = await insertEntity(pool, { namespace: NS, name: 'Ana', type: 'person', scopeUser: user });
      for (let i = 0; i < (user === 'u1' ? 9 : 6); i++) {
        await insertFact(pool, { namespace: NS, scopeUser: user, subjectId: ana, predicate: 'said', factText: statements[i % 3] });
      }
    }
  });

  /** The vector signal's list of one kind for u1, and the table's rows ranked by `distance` (an SQL expression), ties by id. */
  async function bothRankings(kind: 'episode' | 'fact', table: string, userColumn: string, distance: string) {
    const scope: ReadScope = { namespace: NS, userId: 'u1', now: NOW, includeForgotten: false };
    const { lists } = await withReadClient(api.deps.readPool, (db) =>
      collectSignals(db, embedder, scope, { query: QUERY, kinds: [kind], recipe: resolveRecipe('vector_only') }),
    );
    const hits = lists.find((l) => l.signal === 'vector' && l.kind === kind)!.hits;
    const { rows } = await api.deps.pool.query<{ id: string; score: number }>(
      `SELECT id, 1 - ${distance} AS score FROM ${table} WHERE namespace = $1 AND ${userColumn} = 'u1' ORDER BY ${distance}, id`,
      [NS, `[${embedder.embedOne(QUERY).join(',')}]`],
    );
    expect(rows).toHaveLength(9);
    expect(hits.map((h) => h.id)).toEqual(rows.map((r) => r.id));
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(rows[i].score, 9));
  }

  it("ranks them exactly as the distances of the table's rows do, ties by id", async () => {
    // A distance counts up to 1 (an episode's passages, which it has none of here, can only bring it nearer).
    await bothRankings('episode', 'episode', 'user_id', 'least(embedding <=> $2::vector, 1)');
  });

  it("ranks the user's facts exactly as the distances of the table's rows do, ties by id", async () => {
    await bothRankings('fact', 'fact', 'scope_user', '(embedding <=> $2::vector)');
  });
});
