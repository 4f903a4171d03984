import { randomUUID } from 'node:crypto';
import { createActivities } from '../activities/index.js';
import { createApiKey } from '../core/auth/apiKeys.js';
import { toVectorSql } from '../core/db/pool.js';
import { DREAM_SCHEDULE_ID, DREAM_WORKFLOW_TYPE, type DreamReport } from '../core/dream/contracts.js';
import { createExtractionProvider } from '../core/extraction/index.js';
import { ensureDreamSchedule } from '../workers/runtime.js';
import { dreamFixtures } from './support/dreamFixtures.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';

const DAY = 86_400_000;
/** The instant the tests' runs decay at; fact confirmations are placed relative to it. */
const T = new Date('2026-06-01T03:00:00Z');
const daysBefore = (days: number) => new Date(T.getTime() - days * DAY);

interface RunView {
  id: string;
  namespace: string | null;
  status: string;
  report: DreamReport;
}

describe('dream', () => {
  let stack: TestStack;
  /** dreamDecay fails once after its batch committed, for the runs listed here (a lost result). */
  const failDecayOnceFor = new Set<string>();
  const decayAttempts = new Map<string, number>();

  beforeAll(async () => {
    stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' }, withWorker: false });
    const real = createActivities({ ...stack.deps, extractor: createExtractionProvider(stack.deps.config, stack.deps.logger) });
    await stack.startWorker({
      activityOverrides: {
        dreamDecay: async (...args: Parameters<typeof real.dreamDecay>) => {
          const [input] = args;
          decayAttempts.set(input.runId, (decayAttempts.get(input.runId) ?? 0) + 1);
          const result = await real.dreamDecay(input);
          if (failDecayOnceFor.delete(input.runId)) throw new Error('worker lost the result after the commit');
          return result;
        },
      },
    });
  });
  afterAll(async () => {
    await stack.stop();
  });

  const pool = () => stack.deps.pool;

  const { namespace, entity, fact, runDream, counts } = dreamFixtures(() => stack);

  async function factRow(id: string) {
    const { rows } = await pool().query<{ effective_confidence: number | null; decayed_at: Date | null; stale: boolean }>(
      'SELECT effective_confidence, decayed_at, stale FROM fact WHERE id = $1',
      [id],
    );
    return rows[0];
  }

  describe('decay and stale facts', () => {
    let ns: string;
    let subject: string;
    const ids: Record<'halved' | 'permanent' | 'faded', string> = { halved: '', permanent: '', faded: '' };
    let report: DreamReport;
    let before: Awaited<ReturnType<typeof reads>>;

    /** What every read path reports about the subject's facts. */
    async function reads(query = { include_stale: false }) {
      const stale = query.include_stale ? '&include_stale=true' : '';
      const facts = await stack.request<{ facts: Array<{ id: string; effective_confidence: number }> }>('GET', `/v1/facts?namespace=${ns}&subject=${subject}${stale}`);
      const memory = await stack.request<{ facts: Array<{ id: string; effective_confidence: number }> }>('GET', `/v1/entities/${subject}?namespace=${ns}${stale}`);
      const context = await stack.request<{ facts: Array<{ id: string; effective_confidence: number }> }>(
        'GET',
        `/v1/context?namespace=${ns}&query=${encodeURIComponent('What does Orla Byrne like?')}`,
      );
      const search = await stack.request<{ results: Array<{ id: string; type: string }> }>('POST', '/v1/search', {
        namespace: ns,
        query: 'Orla likes sailing chess jazz',
        kinds: ['facts'],
      });
      const confidences = (list: Array<{ id: string; effective_confidence: number }>) =>
        Object.fromEntries(list.map((f) => [f.id, f.effective_confidence]));
      return {
        facts: confidences(facts.body.facts),
        memory: confidences(memory.body.facts),
        context: confidences(context.body.facts),
        search: search.body.results.filter((r) => r.type === 'fact').map((r) => r.id).sort(),
      };
    }

    beforeAll(async () => {
      ns = await namespace('decay');
      subject = await entity(ns, 'Orla Byrne');
      ids.halved = await fact(ns, subject, { text: 'Orla likes sailing.', confidence: 0.7, decayClass: 'slow_decay', confirmedAt: daysBefore(180) });
      ids.permanent = await fact(ns, subject, { text: 'Orla likes chess.', confidence: 0.9, decayClass: 'permanent', confirmedAt: daysBefore(900) });
      // 0.7 × 0.5^(200/21) ≈ 0.0009: far below the 0.05 floor.
      ids.faded = await fact(ns, subject, { text: 'Orla likes jazz.', confidence: 0.7, decayClass: 'fast_decay', confirmedAt: daysBefore(200) });
      before = await reads();
      report = await runDream({ runId: randomUUID(), namespace: ns, now: T.toISOString() });
    });

    it('persists effective confidence at the run instant: 0.7 slow_decay after 180 days is 0.35', async () => {
      const halved = await factRow(ids.halved);
      expect(halved.effective_confidence).toBeCloseTo(0.35, 5);
      expect(halved.decayed_at).toEqual(T);
      expect(halved.stale).toBe(false);
      expect((await factRow(ids.permanent)).effective_confidence).toBeCloseTo(0.9, 5);
      expect(report.passes.decay).toMatchObject({ facts_updated: 3, stale_marked: 1 });
    });

    it('marks facts below DECAY_FLOOR stale', async () => {
      const faded = await factRow(ids.faded);
      expect(faded.effective_confidence).toBeLessThan(0.05);
      expect(faded.stale).toBe(true);
    });

    it('changes no effective confidence any read reports; stale facts leave default reads and come back with include_stale', async () => {
      const after = await reads();
      expect(Object.keys(before.facts).sort()).toEqual([ids.halved, ids.permanent, ids.faded].sort());
      expect(before.search).toContain(ids.faded);
      // The context block applies the floor at its own instant: the faded fact is not listed as current even before
      // the dream marks it stale, and the dream changes nothing there.
      expect(before.context[ids.faded]).toBeUndefined();
      expect(Object.keys(before.context).sort()).toEqual([ids.halved, ids.permanent].sort());
      expect(after.context).toEqual(before.context);
      // Same values for every fact still shown (reads compute them at their own instant, not from the persisted column).
      for (const view of ['facts', 'memory'] as const) {
        const { [ids.faded]: faded, ...rest } = before[view];
        expect(faded).toBeDefined();
        expect(after[view]).toEqual(rest);
      }
      expect(after.search).toEqual(before.search.filter((id) => id !== ids.faded));

      const withStale = await reads({ include_stale: true });
      expect(withStale.facts).toEqual(before.facts);
      expect(withStale.memory).toEqual(before.memory);
    });
  });

  it('a fresher confirmation of a stale fact makes it current again', async () => {
    const ns = await namespace('revive');
    const first = await remember(stack, { namespace: ns, content: 'Nadia works at Orbital.', occurred_at: '2024-01-10T09:00:00Z' });
    expect(first.status).toBe('extracted');
    const [factId] = first.fact_ids;
    await runDream({ runId: randomUUID(), namespace: ns, now: '2030-01-01T00:00:00Z' });
    expect((await factRow(factId)).stale).toBe(true);
    const hidden = await stack.request<{ facts: Array<{ id: string }> }>('GET', `/v1/facts?namespace=${ns}&subject=Nadia`);
    expect(hidden.body.facts.map((f) => f.id)).not.toContain(factId);

    const again = await remember(stack, { namespace: ns, content: 'Nadia works at Orbital.', occurred_at: '2026-11-01T09:00:00Z' });
    expect(again.status).toBe('extracted');
    expect((await factRow(factId)).stale).toBe(false);
    const shown = await stack.request<{ facts: Array<{ id: string }> }>('GET', `/v1/facts?namespace=${ns}&subject=Nadia`);
    expect(shown.body.facts.map((f) => f.id)).toContain(factId);
  });

  it('proposes merges for duplicate entities (never merging), but not for rejected or different ones', async () => {
    const ns = await namespace('dupes');
    const acme = await entity(ns, 'Acme', 'organization');
    const acmeCorp = await entity(ns, 'Acme Corp', 'organization');
    await fact(ns, acmeCorp, { text: 'Acme Corp likes rockets.', confidence: 0.8, decayClass: 'permanent', confirmedAt: T });
    const beacon = await entity(ns, 'Beacon', 'organization');
    const beaconCapital = await entity(ns, 'Beacon Capital GmbH', 'organization');
    const robert = await entity(ns, 'Robert Smith', 'person', ['Bob the Builder']);
    const bobby = await entity(ns, 'R. Smithers', 'person', ['Bob the Builder']);
    const globex = await entity(ns, 'Globex', 'organization');
    const globexInc = await entity(ns, 'Globex Inc', 'organization');
    const [a, b] = [globex, globexInc].sort();
    await pool().query('INSERT INTO merge_rejection (namespace, entity_a, entity_b) VALUES ($1, $2, $3)', [ns, a, b]);
    await entity(ns, 'Paris', 'place');
    await entity(ns, 'London', 'place');
    // Same name, different type: not the same thing.
    await entity(ns, 'Acme', 'product');

    const report = await runDream({ runId: randomUUID(), namespace: ns, now: T.toISOString() });
    const { rows } = await pool().query<{ entity_ids: string[]; payload: { survivor_id: string; loser_id: string; reason: string; similarity: number }; dedup_key: string; status: string }>(
      `SELECT entity_ids, payload, dedup_key, status FROM review_item WHERE namespace = $1 AND kind = 'merge' ORDER BY dedup_key`,
      [ns],
    );
    const key = (x: string, y: string) => `merge:${[x, y].sort().join(':')}`;
    const byKey = new Map(rows.map((r) => [r.dedup_key, r]));
    expect([...byKey.keys()].sort()).toEqual([key(acme, acmeCorp), key(beacon, beaconCapital), key(robert, bobby)].sort());
    expect(report.passes.duplicates.pairs_proposed).toBe(3);

    const acmePair = byKey.get(key(acme, acmeCorp))!;
    // The survivor has more facts.
    expect(acmePair.entity_ids).toEqual([acmeCorp, acme]);
    expect(acmePair.payload).toMatchObject({ survivor_id: acmeCorp, loser_id: acme, reason: 'legal_suffix' });
    expect(typeof acmePair.payload.similarity).toBe('number');
    expect(byKey.get(key(robert, bobby))!.payload.reason).toBe('shared_alias');
    const { rows: live } = await pool().query('SELECT id FROM entity WHERE namespace = $1 AND merged_into IS NOT NULL', [ns]);
    expect(live).toEqual([]);

    // A second run proposes nothing new.
    const second = await runDream({ runId: randomUUID(), namespace: ns, now: T.toISOString() });
    expect(second.passes.duplicates.pairs_proposed).toBe(0);
  });

  it('re-embeds rows whose embedding model is not the configured one', async () => {
    const ns = await namespace('reembed');
    const subject = await entity(ns, 'Ines Duarte');
    const old = await fact(ns, subject, { text: 'Ines likes tea.', confidence: 0.8, decayClass: 'permanent', confirmedAt: T, embeddingModel: 'retired-model' });
    const current = await fact(ns, subject, { text: 'Ines likes cake.', confidence: 0.8, decayClass: 'permanent', confirmedAt: T });
    const episode = randomUUID();
    await pool().query(
      `INSERT INTO episode (id, namespace, content, occurred_at, status, workflow_id, embedding, embedding_model)
       VALUES ($1, $2, 'Ines said she likes tea.', now(), 'extracted', $3, $4::vector, 'retired-model')`,
      [episode, ns, `episode:${episode}`, toVectorSql(new Array(384).fill(0.01))],
    );
    const report = await runDream({ runId: randomUUID(), namespace: ns, now: T.toISOString() });
    expect(report.passes.reembed).toMatchObject({ episodes_reembedded: 1, facts_reembedded: 1 });
    const { rows } = await pool().query<{ id: string; embedding_model: string }>('SELECT id, embedding_model FROM fact WHERE id = ANY($1::uuid[])', [[old, current]]);
    expect(rows.map((r) => r.embedding_model)).toEqual([stack.deps.embedder.model, stack.deps.embedder.model]);
    const { rows: ep } = await pool().query<{ embedding_model: string }>('SELECT embedding_model FROM episode WHERE id = $1', [episode]);
    expect(ep[0].embedding_model).toBe(stack.deps.embedder.model);
  });

  it('archives idle sessions whose workflow is gone, not those of an active persistent task', async () => {
    const ns = await namespace('sessions');
    const session = async (taskId: string, persistentTaskId: string | null) => {
      const id = randomUUID();
      await pool().query(
        `INSERT INTO work_session (id, namespace, task_id, last_activity_at, expires_at, workflow_id, persistent_task_id)
         VALUES ($1, $2, $3, $4, $4, $5, $6)`,
        [id, ns, taskId, daysBefore(2), `session:${ns}:${taskId}`, persistentTaskId],
      );
      return id;
    };
    const orphan = await session('orphan', null);
    const taskId = randomUUID();
    await pool().query(
      `INSERT INTO persistent_task (id, namespace, intent, schedule, error_budget, error_budget_remaining, workflow_id)
       VALUES ($1, $2, 'keep watch', '{}'::jsonb, 3, 3, $3)`,
      [taskId, ns, `task:${taskId}`],
    );
    const kept = await session(taskId, taskId);
    const report = await runDream({ runId: randomUUID(), namespace: ns, now: T.toISOString() });
    expect(report.passes.session_expiry).toMatchObject({ sessions_checked: 1, sessions_expired: 1 });
    const { rows } = await pool().query<{ id: string; status: string }>('SELECT id, status FROM work_session WHERE namespace = $1', [ns]);
    const status = Object.fromEntries(rows.map((r) => [r.id, r.status]));
    expect(status[orphan]).toBe('archived');
    expect(status[kept]).toBe('active');
  });

  it('completes once with the same report when a batch result is lost, across batches and continue-as-new', async () => {
    const seed = async (ns: string) => {
      const subject = await entity(ns, 'Tomas Lind');
      for (let i = 0; i < 5; i++) {
        await fact(ns, subject, { text: `Tomas likes thing ${i}.`, confidence: 0.7, decayClass: 'fast_decay', confirmedAt: daysBefore(45 * i) });
      }
    };
    const small = { batchSizes: { decay: 2, session_expiry: 2, duplicates: 2, reembed: 2 }, batchesPerRun: 3 };
    const clean = await namespace('clean');
    const faulty = await namespace('faulty');
    await seed(clean);
    await seed(faulty);
    const cleanReport = await runDream({ runId: randomUUID(), namespace: clean, now: T.toISOString(), ...small });

    const runId = randomUUID();
    failDecayOnceFor.add(runId);
    const faultyReport = await runDream({ runId, namespace: faulty, now: T.toISOString(), ...small });
    expect(counts(faultyReport)).toEqual(counts(cleanReport));
    expect(faultyReport.passes.decay).toMatchObject({ facts_updated: 5, stale_marked: 3 });
    expect(faultyReport.totals.batches).toBe(cleanReport.totals.batches);
    // decay: 3 batches of ≤ 2 facts, one of them attempted twice.
    expect(decayAttempts.get(runId)).toBe(4);

    const stored = await stack.request<RunView>('GET', `/v1/dream/runs/${runId}`);
    expect(stored.body.status).toBe('completed');
    expect(stored.body.report).toEqual(faultyReport);
    const { rows } = await pool().query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log WHERE namespace = $1 AND action = 'fact.decayed'`, [faulty]);
    expect(rows[0].n).toBe(3);
  });

  describe('API', () => {
    async function waitForRun(id: string, key?: string): Promise<RunView> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const res = await stack.request<RunView>('GET', `/v1/dream/runs/${id}`, undefined, key);
        if (res.status === 200 && res.body.status !== 'running') return res.body;
        if (Date.now() > deadline) throw new Error(`dream run ${id} did not finish: ${JSON.stringify(res.body)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    it('runs a dream on demand and serves its report', async () => {
      const ns = await namespace('api');
      const subject = await entity(ns, 'Kai Moreau');
      await fact(ns, subject, { text: 'Kai likes rain.', confidence: 0.6, decayClass: 'slow_decay', confirmedAt: new Date() });
      const res = await stack.request<{ run_id: string; workflow_id: string }>('POST', '/v1/dream/run', { namespace: ns });
      expect(res.status).toBe(202);
      expect(res.body.workflow_id).toBe(`dream:${res.body.run_id}`);
      const run = await waitForRun(res.body.run_id);
      expect(run).toMatchObject({ id: res.body.run_id, namespace: ns, status: 'completed' });
      expect(run.report.passes.decay.facts_updated).toBe(1);
      expect(Object.keys(run.report.passes).sort()).toEqual(['decay', 'duplicates', 'reembed', 'session_expiry']);
      expect(run.report).not.toHaveProperty('checkpoint');
      const list = await stack.request<{ runs: RunView[] }>('GET', `/v1/dream/runs?namespace=${ns}`);
      expect(list.body.runs.map((r) => r.id)).toEqual([res.body.run_id]);
    });

    it('keeps namespaced keys to their own namespace and requires the operator role', async () => {
      const own = await namespace('own');
      const other = await namespace('other');
      const operator = await createApiKey(pool(), { role: 'operator', namespace: own });
      const agent = await createApiKey(pool(), { role: 'agent', namespace: own });

      const denied = await stack.request<{ error: { code: string } }>('POST', '/v1/dream/run', { namespace: other }, operator.key);
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('forbidden');
      expect((await stack.request('POST', '/v1/dream/run', { namespace: own }, agent.key)).status).toBe(403);
      expect((await stack.request('GET', '/v1/dream/runs', undefined, agent.key)).status).toBe(403);

      const mine = await stack.request<{ run_id: string }>('POST', '/v1/dream/run', {}, operator.key);
      expect(mine.status).toBe(202);
      const run = await waitForRun(mine.body.run_id, operator.key);
      expect(run.namespace).toBe(own);

      // Runs of other namespaces are invisible to it.
      const theirs = await stack.request<{ run_id: string }>('POST', '/v1/dream/run', { namespace: other });
      expect((await stack.request('GET', `/v1/dream/runs/${theirs.body.run_id}`, undefined, operator.key)).status).toBe(404);
      const listed = await stack.request<{ runs: RunView[] }>('GET', '/v1/dream/runs', undefined, operator.key);
      expect(listed.body.runs.map((r) => r.namespace)).toEqual([own]);
      await waitForRun(theirs.body.run_id);
    });

    it('rejects bad input and unknown namespaces', async () => {
      const bad = await stack.request<{ error: { code: string } }>('POST', '/v1/dream/run', { namespace: 'x', colour: 'red' });
      expect(bad.status).toBe(400);
      expect((await stack.request('POST', '/v1/dream/run', { namespace: 'no-such-namespace' })).status).toBe(404);
      expect((await stack.request('GET', '/v1/dream/runs/not-a-uuid')).status).toBe(404);
    });
  });

  it('keeps the dream schedule on DREAM_CRON, updating it when the cron changes', async () => {
    const handle = stack.deps.temporal.client.schedule.getHandle(DREAM_SCHEDULE_ID);
    await handle.delete().catch(() => undefined);
    try {
      await ensureDreamSchedule(stack.deps);
      let described = await handle.describe();
      expect(described.state.note).toBe('cron: 0 3 * * *');
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: DREAM_WORKFLOW_TYPE });
      expect(described.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 3, end: 3, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] });

      await ensureDreamSchedule({ ...stack.deps, config: { ...stack.deps.config, DREAM_CRON: '30 4 * * *' } });
      described = await handle.describe();
      expect(described.state.note).toBe('cron: 30 4 * * *');
      expect(described.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 4, end: 4, step: 1 }], minute: [{ start: 30, end: 30, step: 1 }] });
    } finally {
      await handle.delete().catch(() => undefined);
    }
  });
});
