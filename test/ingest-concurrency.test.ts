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

  it('commits many turns of one speaker at once, moving last_seen_at only in steps of an hour', async () => {
    const ns = 'one-speaker';
    const at = (minutes: number) => new Date(Date.parse('2026-05-01T09:00:00Z') + minutes * 60_000).toISOString();
    const write = async (items: Array<{ content: string; minutes: number }>) => {
      const res = await stack.request<{ memories: Array<{ id: string }> }>('POST', '/v1/memories/batch', {
        memories: items.map((m) => ({ namespace: ns, user_id: 'nadia', speaker: 'Nadia', content: m.content, occurred_at: at(m.minutes) })),
      });
      expect(res.status).toBe(202);
      for (const m of res.body.memories) expect((await waitForStatus(stack, m.id)).status).toBe('extracted');
    };
    const lastSeen = async () =>
      (await stack.deps.pool.query<{ last_seen_at: Date }>(`SELECT last_seen_at FROM entity WHERE namespace = $1 AND name = 'Nadia'`, [ns])).rows.map((r) =>
        r.last_seen_at.toISOString(),
      );

    await write([{ content: 'I live in Lisbon.', minutes: 0 }]);
    expect(await lastSeen()).toEqual([at(0)]);
    // Ten turns within the hour, extracted concurrently: the speaker's row is not rewritten by each.
    await write(Array.from({ length: 10 }, (_, i) => ({ content: ['I love jazz.', 'I work at Globex.', 'My sister is Ana.', 'I drive a Volvo.', 'I play chess.'][i % 5], minutes: 5 + i })));
    expect(await lastSeen()).toEqual([at(0)]);
    await write([{ content: 'I play the cello.', minutes: 150 }]);
    expect(await lastSeen()).toEqual([at(150)]);

    const facts = await stack.deps.pool.query<{ fact_text: string; n: number }>(
      `SELECT f.fact_text, count(*)::int AS n FROM fact f JOIN entity s ON s.id = f.subject_id
        WHERE f.namespace = $1 AND s.name = 'Nadia' AND f.invalid_at IS NULL GROUP BY 1`,
      [ns],
    );
    // Each statement once and still valid, however many turns repeated it at the same time (a turn that
    // finds its statement committed meanwhile confirms it; it once also "superseded" it, ending it).
    expect(facts.rows.map((r) => r.fact_text)).toEqual(
      expect.arrayContaining(["Ana is Nadia's sister.", 'Nadia likes jazz.', 'Nadia lives in Lisbon.', 'Nadia works at Globex.']),
    );
    expect(facts.rows.filter((r) => r.n !== 1)).toEqual([]);
  });
});
