import { startTestStack, waitForStatus, type TestStack } from './support/stack.js';

describe('concurrent extractions of the same knowledge', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('converge on one entity per name and one fact per statement', async () => {
    const ns = 'concurrent';
    const res = await stack.request<{ memories: Array<{ id: string }> }>('POST', '/v1/memories/batch', {
      memories: Array.from({ length: 12 }, (_, i) => ({
        namespace: ns,
        content: i % 2 === 0 ? 'Rosa works at Quanta. Rosa lives in Madrid.' : 'Rosa lives in Madrid.',
        occurred_at: '2026-04-04T00:00:00Z',
      })),
    });
    expect(res.status).toBe(202);
    for (const m of res.body.memories) expect((await waitForStatus(stack, m.id)).status).toBe('extracted');

    const entities = await stack.deps.pool.query<{ name: string; n: number }>(
      `SELECT name, count(*)::int AS n FROM entity WHERE namespace = $1 GROUP BY name ORDER BY name`,
      [ns],
    );
    expect(entities.rows).toEqual([
      { name: 'Madrid', n: 1 },
      { name: 'Quanta', n: 1 },
      { name: 'Rosa', n: 1 },
    ]);
    const facts = await stack.deps.pool.query<{ predicate: string; confirmation_count: number; episodes: number }>(
      `SELECT f.predicate, f.confirmation_count, (SELECT count(DISTINCT episode_id)::int FROM fact_episode fe WHERE fe.fact_id = f.id) AS episodes
         FROM fact f WHERE f.namespace = $1 ORDER BY f.predicate`,
      [ns],
    );
    expect(facts.rows).toEqual([
      { predicate: 'lives_in', confirmation_count: 12, episodes: 12 },
      { predicate: 'works_at', confirmation_count: 6, episodes: 6 },
    ]);
  });
});
