import { toVectorSql } from '../core/db/pool.js';
import { keywordTsQuery } from '../core/retrieval/queryText.js';
import { resolveRecipe } from '../core/retrieval/recipes.js';
import type { SignalInput } from '../core/retrieval/signals/context.js';
import { graphSignal } from '../core/retrieval/signals/graph.js';
import type { SignalBranches } from '../core/retrieval/signals/statement.js';
import { temporalBranchesWith } from '../core/retrieval/signals/temporal.js';
import { SqlParams } from '../core/retrieval/sql.js';
import { embedder, insertEntity, insertEpisode, type ReadApi, useReadApi } from './support/graphFixtures.js';
import { nodesOf, type PlanNode, preparedPlan } from './support/plans.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'once';
const QUERY = 'what did Stefan cook for dinner in 2025';

/**
 * The plan nodes that run for every row and whose own expressions call `fn`:
 * what an InitPlan (a CTE, an uncorrelated scalar subquery) computes runs once,
 * everything else runs per row of whatever drives it.
 */
function perRowCalls(node: PlanNode, fn: string, once = false): string[] {
  const runsOnce = once || node['Parent Relationship'] === 'InitPlan';
  const { Plans: children, ...own } = node;
  const here = !runsOnce && JSON.stringify(own).includes(`${fn}(`) ? [`${node['Node Type']}${node['Subplan Name'] ? ` (${node['Subplan Name']})` : ''}`] : [];
  return [...here, ...(children ?? []).flatMap((child) => perRowCalls(child, fn, runsOnce))];
}

describe('query-derived values are computed once per statement, not once per row', () => {
  let api: ReadApi;

  useReadApi(NOW, async (started) => {
    api = started;
    const pool = api.deps.pool;
    const episodes: string[] = [];
    for (let i = 0; i < 40; i++) {
      const content = i % 2 ? `Stefan cooked risotto for dinner with friends, evening ${i}.` : `Stefan sorted out the printer toner before the sync, note ${i}.`;
      episodes.push(await insertEpisode(pool, { namespace: NS, content, occurredAt: new Date(Date.UTC(2025, 0, 3 + i * 7)), userId: 'u1' }));
    }
    await insertEntity(pool, { namespace: NS, name: 'Stefan', scopeUser: 'u1', episodeIds: episodes });
  });

  function input(overrides: Partial<SignalInput> = {}): SignalInput {
    return {
      db: api.deps.readPool,
      scope: { namespace: NS, now: NOW, includeForgotten: false },
      recipe: resolveRecipe('default'),
      kinds: new Set(['episode', 'fact', 'entity'] as const),
      query: QUERY,
      vector: async () => toVectorSql(embedder.embedOne(QUERY)),
      tsquery: keywordTsQuery(QUERY),
      window: { start: new Date('2025-01-01T00:00:00Z'), end: new Date('2026-01-01T00:00:00Z'), text: 'in 2025' },
      ...overrides,
    };
  }

  /**
   * The generic plan the read path runs (its sessions force generic plans), explained as it runs: an EXPLAIN with
   * the values bound plans for those values and folds `to_tsquery('english', 'words')` into a constant.
   */
  async function plan(part: SignalBranches, p: SqlParams): Promise<PlanNode> {
    const sql = `${part.ctes.length ? `WITH ${part.ctes.join(', ')} ` : ''}${part.branches.join(' UNION ALL ')}`;
    return preparedPlan(api.deps.readPool, sql, p.values, ['ANALYZE', 'VERBOSE']);
  }

  it('the graph signal weighs the query words once, not for every episode of the named entities', async () => {
    // Inlined, the weighted-terms CTE parsed the query, read each term's share and built its tsquery again for every
    // linked episode: 8 µs a row, about 4 ms of a namespace-wide search at 100,000 episodes.
    const graph = await graphSignal(input());
    expect(graph.episodes).not.toBeNull();
    const p = new SqlParams();
    const part = (await graph.episodes!(input(), p))!;
    const root = await plan(part, p);
    expect(nodesOf(root).some((n) => n['Subplan Name'] === 'CTE terms_graph_episode')).toBe(true);
    for (const fn of ['to_tsvector', 'to_tsquery']) expect(perRowCalls(root, fn)).toEqual([]);
  });

  it("the temporal signal parses the query's words once, not for every row of the window (the context recipe)", async () => {
    // With a parameter in a generic plan, to_tsquery('english', $n) is evaluated again for every row it scores.
    const words = input({ recipe: resolveRecipe('context') });
    for (const bound of [5_000, 5]) {
      // Both branches: the window scored row by row, and (past the bound) the rows the text index finds.
      const p = new SqlParams();
      const part = (await temporalBranchesWith(bound)(words, p))!;
      expect(perRowCalls(await plan(part, p), 'to_tsquery')).toEqual([]);
    }
  });
});
