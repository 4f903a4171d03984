import { createMaintenanceActivities } from '../activities/maintenance.js';
import { analyzeGrownTables } from '../core/db/analyzeGrown.js';
import { RECONCILE_SCHEDULE_ID, SEARCH_STATS_SCHEDULE_ID } from '../core/ingest/contracts.js';
import { refreshTermStats } from '../core/retrieval/termStats.js';
import { ensureSchedules } from '../workers/runtime.js';
import { insertEpisode, type ReadApi, useReadApi } from './support/graphFixtures.js';
import { startTestStack } from './support/stack.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'stats';

async function share(api: ReadApi, lexeme: string): Promise<number | null> {
  const { rows } = await api.deps.pool.query<{ share: number }>(`SELECT share FROM term_share WHERE tbl = 'episode' AND lexeme = $1`, [lexeme]);
  return rows[0]?.share ?? null;
}

describe('term rarity for the keyword signal (term_share)', () => {
  let api: ReadApi;
  const ids: Record<string, string> = {};

  useReadApi(NOW, async (started) => {
    api = started;
    const ep = (key: string, content: string, occurredAt = '2026-06-01T10:00:00Z') =>
      insertEpisode(api.deps.pool, { namespace: NS, content, occurredAt, userId: 'u1' }).then((id) => (ids[key] = id));
    // "meeting" is in every episode but one; "saffron" in one. One turn says "meeting" three times; another is the newest.
    for (let i = 0; i < 40; i++) await ep(`m${i}`, `Weekly meeting ${i} about tickets and the printer.`, i === 39 ? '2026-06-02T10:00:00Z' : undefined);
    await ep('meetings', 'The meeting after the meeting ran long: notes from the planning meeting.');
    await ep('saffron', 'Bought saffron for the risotto.');
  });

  const search = async (query: string) => {
    const res = await api.request<{ results: Array<{ id: string }> }>('POST', '/v1/search', { namespace: NS, query, recipe: 'keyword_only', kinds: ['episodes'] });
    expect(res.status).toBe(200);
    return res.body.results.map((r) => r.id);
  };

  it('is empty before statistics exist: every term counts as rare, and rows that tie come newest first', async () => {
    expect(await share(api, 'meet')).toBeNull();
    const ranked = await search('meeting saffron');
    // Both terms weigh the same, so every turn ties on rarity (however often it says its word), and the newest leads.
    expect(ranked[0]).toBe(ids.m39);
    expect(ranked.length).toBeGreaterThan(2);
  });

  it('after ANALYZE and a refresh, holds each lexeme share and a floor for unlisted ones; rare terms lead', async () => {
    await api.deps.pool.query('ANALYZE episode');
    const { lexemes } = await refreshTermStats(api.deps.pool);
    expect(lexemes).toBeGreaterThan(5);
    expect(await share(api, 'meet')).toBeGreaterThan(0.9);
    const floor = await share(api, '');
    expect(floor).not.toBeNull();
    expect(floor!).toBeLessThan(0.05);
    const ranked = await search('meeting saffron');
    expect(ranked[0]).toBe(ids.saffron);
  });

  it('the refresh activity first ANALYZEs tables grown by more than a fifth since their last ANALYZE, and only those', async () => {
    // Autovacuum is off on PGlite (and may be on a server): without this, term_share and the planner's estimates stay as they were.
    const { pool } = api.deps;
    const reltuples = async (table: string) => Number((await pool.query<{ n: number }>('SELECT reltuples AS n FROM pg_class WHERE oid = $1::regclass', [table])).rows[0].n);
    await pool.query('ANALYZE');
    expect(await analyzeGrownTables(pool)).toEqual([]);
    await pool.query(
      `INSERT INTO episode (id, namespace, user_id, content, occurred_at, status, workflow_id)
       SELECT gen_random_uuid(), namespace, user_id, 'Cardamom buns number ' || g || repeat(' with a long note', 40), occurred_at, status, 'bulk:' || g
         FROM episode, generate_series(1, 600) g WHERE id = $1`,
      [ids.saffron],
    );
    expect(await reltuples('episode')).toBeLessThan(100);
    expect(await share(api, 'cardamom')).toBeNull();
    const refreshed = await createMaintenanceActivities(api.deps).refreshSearchStats();
    expect(refreshed.analyzed).toEqual(['episode']);
    expect(await reltuples('episode')).toBeGreaterThan(600);
    expect(await share(api, 'cardamom')).toBeGreaterThan(0.8);
    expect(await analyzeGrownTables(pool)).toEqual([]);
  });

  it('refreshes concurrently, so reads never wait (the view keeps answering during a refresh)', async () => {
    const [stats, ranked] = await Promise.all([refreshTermStats(api.deps.pool), search('saffron risotto')]);
    expect(stats.lexemes).toBeGreaterThan(5);
    expect(ranked[0]).toBe(ids.saffron);
  });
});

describe('the search-stats schedule', () => {
  it('runs refreshSearchStats through Temporal, which fills term_share', async () => {
    const stack = await startTestStack({ withWorker: true });
    try {
      await insertEpisode(stack.deps.pool, { namespace: NS, content: 'Tea with lemon and honey.', occurredAt: NOW });
      await stack.deps.pool.query('ANALYZE episode');
      // The test server is shared: a schedule another test left would point at its own task queue.
      for (const id of [SEARCH_STATS_SCHEDULE_ID, RECONCILE_SCHEDULE_ID]) await stack.deps.temporal.client.schedule.getHandle(id).delete().catch(() => undefined);
      await ensureSchedules(stack.deps);
      const handle = stack.deps.temporal.client.schedule.getHandle(SEARCH_STATS_SCHEDULE_ID);
      const described = await handle.describe();
      expect(described.spec.intervals?.[0]?.every).toBe(60_000);
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'refreshSearchStats', taskQueue: stack.deps.temporal.taskQueue });
      await handle.trigger();
      const deadline = Date.now() + 60_000;
      let lexemes = 0;
      while (Date.now() < deadline && lexemes === 0) {
        const { rows } = await stack.deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM term_share WHERE tbl = 'episode' AND lexeme <> ''`);
        lexemes = rows[0].n;
        if (!lexemes) await new Promise((r) => setTimeout(r, 250));
      }
      expect(lexemes).toBeGreaterThan(0);
    } finally {
      // The test server is shared: leave no schedule pointing at this test's task queue.
      for (const id of [SEARCH_STATS_SCHEDULE_ID, RECONCILE_SCHEDULE_ID]) await stack.deps.temporal.client.schedule.getHandle(id).delete().catch(() => undefined);
      await stack.stop();
    }
  }, 120_000);

  it('gives a schedule an earlier version made every 5 minutes the interval of this one', async () => {
    const stack = await startTestStack({ withWorker: false });
    const client = stack.deps.temporal.client;
    try {
      for (const id of [SEARCH_STATS_SCHEDULE_ID, RECONCILE_SCHEDULE_ID]) await client.schedule.getHandle(id).delete().catch(() => undefined);
      const earlier = await client.schedule.create({
        scheduleId: SEARCH_STATS_SCHEDULE_ID,
        spec: { intervals: [{ every: '5m' }] },
        action: { type: 'startWorkflow', workflowType: 'refreshSearchStats', taskQueue: stack.deps.temporal.taskQueue, args: [] },
        state: { paused: true, note: 'an operator paused it' },
      });
      await ensureSchedules(stack.deps);
      const described = await earlier.describe();
      expect(described.spec.intervals?.map((interval) => interval.every)).toEqual([60_000]);
      // Only the interval changes: what an operator set stays.
      expect(described.state).toMatchObject({ paused: true, note: 'an operator paused it' });
      expect(described.info.lastUpdatedAt).toBeDefined();
      // Already at this interval: a second start updates nothing.
      await ensureSchedules(stack.deps);
      expect((await earlier.describe()).info.lastUpdatedAt).toEqual(described.info.lastUpdatedAt);
    } finally {
      for (const id of [SEARCH_STATS_SCHEDULE_ID, RECONCILE_SCHEDULE_ID]) await client.schedule.getHandle(id).delete().catch(() => undefined);
      await stack.stop();
    }
  }, 120_000);
});
