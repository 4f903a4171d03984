import type { Queryable } from '../core/db/pool.js';
import { resolveRecipe } from '../core/retrieval/recipes.js';
import type { ReadScope } from '../core/retrieval/scope.js';
import { collectSignals } from '../core/retrieval/search.js';
import { withReadClient } from '../core/retrieval/sql.js';
import { embedder, insertEntity, insertEpisode, type ReadApi, useReadApi } from './support/graphFixtures.js';
import { nodesOf, preparedPlan } from './support/plans.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'user_vectors_plan';
const QUERY = 'what did Ana say about the sailing boat';

describe("a user's episodes ranked by distance for a search", () => {
  let api: ReadApi;
  const boat: string[] = [];

  useReadApi(NOW, async (started) => {
    api = started;
    const pool = api.deps.pool;
    // Ana's user has a few episodes of their own; 20 other users have 100 each, interleaved with them in the table.
    for (const content of ['Ana said the sailing boat is moored in Split.', 'Ana and I had lunch near the station.', 'The dentist moved my appointment.']) {
      boat.push(await insertEpisode(pool, { namespace: NS, content, occurredAt: '2026-05-01T10:00:00Z', userId: 'u1' }));
    }
    await pool.query(
      `INSERT INTO episode (id, namespace, user_id, content, metadata, occurred_at, status, workflow_id, embedding, embedding_model, extracted_at)
       SELECT gen_random_uuid(), $1, 'other' || (g % 20), 'note ' || g || ' about the weather', '{}', '2026-05-01'::timestamptz + g * interval '1 minute',
              'extracted', 'episode:bulk-' || g, (SELECT embedding FROM episode WHERE id = $2), $3, now()
       FROM generate_series(1, 2000) g`,
      [NS, boat[2], embedder.model],
    );
    await insertEntity(pool, { namespace: NS, name: 'Ana', scopeUser: 'u1', episodeIds: boat.slice(0, 2) });
    // As autovacuum leaves a table: statistics, and pages marked all-visible (what lets a scan skip the heap).
    await pool.query('VACUUM ANALYZE episode');
  });

  /** The statement of the vector, keyword and graph signals that a per-user search sends, and its parameters. */
  async function signalStatement(scope: ReadScope): Promise<{ text: string; values: unknown[] }> {
    const sent: Array<{ text: string; values: unknown[] }> = [];
    await withReadClient(api.deps.readPool, async (db) => {
      const recorder: Queryable = {
        query: (async (text: string, values?: unknown[]) => {
          sent.push({ text, values: values ?? [] });
          return db.query(text, values);
        }) as Queryable['query'],
      };
      await collectSignals(recorder, embedder, scope, { query: QUERY, kinds: ['episode', 'fact', 'entity'], recipe: resolveRecipe('default') });
    });
    return sent.find((s) => s.text.includes('scope_episode'))!;
  }

  it('scores them from episode_user_vectors_idx alone, and reads the table only for the episodes holding a query word', async () => {
    // Read from the table, each of a user's episodes was a page read of its own: 3,333 per search for a user at a
    // million episodes. The scans of `episode` in the read path's own kind of plan (a prepared statement's generic
    // plan, on a read-path connection).
    const scope: ReadScope = { namespace: NS, userId: 'u1', now: NOW, includeForgotten: false };
    const { text, values } = await signalStatement(scope);
    const nodes = nodesOf(await preparedPlan(api.deps.readPool, text, values));
    const scopeScan = nodes.find((n) => n['Subplan Name'] === 'CTE scope_episode');
    expect([scopeScan?.['Node Type'], scopeScan?.['Index Name']]).toEqual(['Index Only Scan', 'episode_user_vectors_idx']);
    // The graph signal's linked episodes are no longer joined to the table by id, one page read each.
    const byId = nodes.filter((n) => n['Relation Name'] === 'episode' && n['Index Name'] === 'episode_pkey');
    expect(byId).toEqual([]);
    const wordHits = nodes.find((n) => n['Subplan Name'] === 'CTE graph_word_hit');
    expect(nodesOf(wordHits!).some((n) => n['Index Name'] === 'episode_user_terms_idx')).toBe(true);
  });

  it("ranks the user's episodes exactly as the distances of the table's rows do", async () => {
    const scope: ReadScope = { namespace: NS, userId: 'u1', now: NOW, includeForgotten: false };
    const { lists } = await withReadClient(api.deps.readPool, (db) =>
      collectSignals(db, embedder, scope, { query: QUERY, kinds: ['episode'], recipe: resolveRecipe('vector_only') }),
    );
    const hits = lists.find((l) => l.signal === 'vector' && l.kind === 'episode')!.hits;
    const { rows } = await api.deps.pool.query<{ id: string; score: number }>(
      // A distance counts up to 1 (an episode's passages, which it has none of here, can only bring it nearer).
      `SELECT id, 1 - least(embedding <=> $2::vector, 1) AS score FROM episode WHERE namespace = $1 AND user_id = 'u1'
       ORDER BY least(embedding <=> $2::vector, 1), id`,
      [NS, `[${embedder.embedOne(QUERY).join(',')}]`],
    );
    expect(hits.map((h) => h.id)).toEqual(rows.map((r) => r.id));
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(rows[i].score, 9));
  });
});
