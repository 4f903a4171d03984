import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities, type Activities } from '../activities/index.js';
import { HeuristicProvider } from '../core/extraction/heuristic/index.js';
import type { EpisodeSnapshot, ResolvedEntity, WritePlan } from '../core/ingest/contracts.js';
import { startTestStack, type TestStack } from './support/stack.js';

/**
 * The seven stages of two episodes interleaved by hand, with the real
 * activities on a real database: stage 6 of one episode runs before the
 * other's commit, so only the commit (under its locks) can see what the other
 * wrote. The worker-driven concurrency test meets these orders only by chance.
 */
describe('commit re-judges what concurrent episodes committed meanwhile', () => {
  let stack: TestStack;
  let activities: Activities;
  const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'episode:race', runId: 'race-run' } } as never);
  const run = <T>(fn: () => Promise<T>): Promise<T> => env.run(fn);

  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false });
    activities = createActivities({ ...stack.deps, extractor: new HeuristicProvider() });
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function write(namespace: string, content: string, occurredAt: string): Promise<string> {
    const res = await stack.request<{ id: string }>('POST', '/v1/memories', { namespace, user_id: 'nadia', speaker: 'Nadia', content, occurred_at: occurredAt });
    expect(res.status).toBe(202);
    return res.body.id;
  }

  interface Planned {
    episode: EpisodeSnapshot;
    entities: ResolvedEntity[];
    plan?: WritePlan;
  }

  async function resolve(episodeId: string): Promise<Planned> {
    const begun = await run(() => activities.beginExtraction({ episodeId }));
    if (!begun.proceed) throw new Error(`episode ${episodeId} is ${begun.status}`);
    const { episode } = begun;
    const candidates = await run(() => activities.entityExtract({ episode }));
    return { episode, entities: await run(() => activities.entityResolve({ episode, entities: candidates })) };
  }

  async function plan(p: Planned): Promise<Planned> {
    const { episode, entities } = p;
    const facts = await run(() => activities.factExtract({ episode, entities }));
    const bound = await run(() => activities.factDedup({ episode, entities, facts }));
    const timed = await run(() => activities.temporalResolve({ episode, facts: bound }));
    return { ...p, plan: await run(() => activities.contradiction({ episode, facts: timed })) };
  }

  const commit = (p: Planned) => run(() => activities.commitEpisode({ episode: p.episode, entities: p.entities, plan: p.plan! }));
  const extract = async (episodeId: string) => commit(await plan(await resolve(episodeId)));

  async function worksAt(namespace: string) {
    const { rows } = await stack.deps.pool.query<{ fact_text: string; invalid_at: Date | null; expired_at: Date | null; confirmation_count: number; invalidated_by: string | null; id: string }>(
      `SELECT f.id, f.fact_text, f.invalid_at, f.expired_at, f.confirmation_count, f.invalidated_by FROM fact f
        WHERE f.namespace = $1 AND f.predicate = 'works_at' ORDER BY f.recorded_at, f.id`,
      [namespace],
    );
    return rows;
  }

  it('confirms the same statement even when this episode saw its object as a new entity', async () => {
    const ns = 'race-same';
    await extract(await write(ns, 'I live in Lisbon.', '2026-05-01T09:00:00Z'));
    // The older turn resolves "Globex" before the newer one commits it: it holds a provisional id for it.
    const older = await resolve(await write(ns, 'I work at Globex.', '2026-05-01T09:06:00Z'));
    await extract(await write(ns, 'I work at Globex.', '2026-05-01T09:11:00Z'));
    const planned = await plan(older);
    // Stage 6 compared ids, so it took the newer turn's fact for another, later value: history closed by it.
    expect(planned.plan!.inserts).toEqual([expect.objectContaining({ invalidatedBy: expect.any(String) })]);
    expect(planned.plan!.reviews).toHaveLength(0);
    await commit(planned);

    const facts = await worksAt(ns);
    expect(facts.map((f) => [f.fact_text, f.invalid_at, f.expired_at, f.confirmation_count])).toEqual([['Nadia works at Globex.', null, null, 2]]);
    const reviews = await stack.deps.pool.query('SELECT 1 FROM review_item WHERE namespace = $1', [ns]);
    expect(reviews.rowCount).toBe(0);
    const links = await stack.deps.pool.query<{ relation: string }>('SELECT relation FROM fact_episode WHERE fact_id = $1 ORDER BY relation', [facts[0].id]);
    expect(links.rows.map((r) => r.relation)).toEqual(['confirmed', 'created']);
    // The older turn moved its start back to when it was first said (history order).
    const { rows } = await stack.deps.pool.query<{ valid_from: Date }>('SELECT valid_from FROM fact WHERE id = $1', [facts[0].id]);
    expect(rows[0].valid_from.toISOString()).toBe('2026-05-01T09:06:00.000Z');
  });

  it('supersedes a value another episode committed after stage 6 looked', async () => {
    const ns = 'race-value';
    await extract(await write(ns, 'I live in Lisbon.', '2026-05-01T09:00:00Z'));
    const first = await plan(await resolve(await write(ns, 'I work at Globex.', '2026-05-01T09:06:00Z')));
    const second = await plan(await resolve(await write(ns, 'I work at Initech.', '2026-06-01T09:00:00Z')));
    // Neither saw the other: both plans insert a works_at value and end nothing.
    expect([first.plan!.inserts.length, second.plan!.invalidations.length]).toEqual([1, 0]);
    await commit(first);
    await commit(second);

    const facts = await worksAt(ns);
    const [globex, initech] = facts;
    expect(facts.map((f) => f.fact_text)).toEqual(['Nadia works at Globex.', 'Nadia works at Initech.']);
    expect(globex.invalid_at?.toISOString()).toBe('2026-06-01T09:00:00.000Z');
    expect(globex.invalidated_by).toBe(initech.id);
    expect(initech.invalid_at).toBeNull();
  });

  it('stores a late, older value as history closed by the value committed meanwhile (history order: no review, as before issue 24)', async () => {
    const ns = 'race-backfill';
    await extract(await write(ns, 'I live in Lisbon.', '2026-05-01T09:00:00Z'));
    const older = await plan(await resolve(await write(ns, 'I work at Globex.', '2026-05-01T09:06:00Z')));
    await extract(await write(ns, 'I work at Initech.', '2026-06-01T09:00:00Z'));
    await commit(older);

    // Older world time: the late value is history, closed where the value committed meanwhile starts.
    const facts = await worksAt(ns);
    const current = facts.filter((f) => f.invalid_at === null && f.expired_at === null).map((f) => f.fact_text);
    expect(current).toEqual(['Nadia works at Initech.']);
    const globex = facts.find((f) => f.fact_text === 'Nadia works at Globex.')!;
    const initech = facts.find((f) => f.fact_text === 'Nadia works at Initech.')!;
    expect([globex.invalid_at?.toISOString(), globex.invalidated_by]).toEqual(['2026-06-01T09:00:00.000Z', initech.id]);
    const reviews = await stack.deps.pool.query<{ kind: string }>('SELECT kind FROM review_item WHERE namespace = $1', [ns]);
    expect(reviews.rows).toEqual([]);
  });

  it("leaves an episode's own values of one slot to stage 6, as before", async () => {
    const ns = 'race-own';
    await extract(await write(ns, 'I live in Lisbon.', '2026-05-01T09:00:00Z'));
    await extract(await write(ns, 'I work at Globex and Initech.', '2026-05-01T09:06:00Z'));
    const facts = await worksAt(ns);
    expect(facts.map((f) => [f.fact_text, f.invalid_at, f.expired_at]).sort()).toEqual([
      ['Nadia works at Globex.', null, null],
      ['Nadia works at Initech.', null, null],
    ]);
    const reviews = await stack.deps.pool.query('SELECT 1 FROM review_item WHERE namespace = $1', [ns]);
    expect(reviews.rowCount).toBe(0);
  });
});
