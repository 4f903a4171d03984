import { RECONCILE_SCHEDULE_ID } from '../core/ingest/contracts.js';
import { HeuristicProvider } from '../core/extraction/heuristic/index.js';
import { ensureSchedules } from '../workers/runtime.js';
import { RestartableTemporal } from './support/devServer.js';
import { startOpenAIStub } from './support/openaiStub.js';
import { providerResponder } from './support/openaiStubResponder.js';
import { remember, startTestStack, waitForStatus } from './support/stack.js';
import { spawnWorkerProcess, stopProcess } from './support/workerProcess.js';

type FactLine = [string, string | null, string];

async function factLines(stack: Awaited<ReturnType<typeof startTestStack>>, namespace: string): Promise<FactLine[]> {
  const { rows } = await stack.deps.pool.query<{ predicate: string; target: string | null; fact_text: string }>(
    `SELECT f.predicate, COALESCE(o.name, f.value) AS target, f.fact_text FROM fact f LEFT JOIN entity o ON o.id = f.object_id
      WHERE f.namespace = $1 ORDER BY 1, 2, 3`,
    [namespace],
  );
  return rows.map((r) => [r.predicate, r.target, r.fact_text]);
}

describe('durability of the write path', () => {
  it('accepts writes while Temporal is down; reconcile extracts them when it is back', async () => {
    const temporal = await RestartableTemporal.create();
    const stack = await startTestStack({ temporalAddress: temporal.address, withWorker: false });
    try {
      await temporal.stop();
      const res = await stack.request<{ id: string; status: string }>('POST', '/v1/memories', { namespace: 'durable', content: 'Ines lives in Lisbon.' });
      expect(res.status).toBe(202);
      const { rows } = await stack.deps.pool.query('SELECT status FROM episode WHERE id = $1', [res.body.id]);
      expect(rows[0].status).toBe('pending');

      await temporal.start();
      await stack.startWorker({ ensureSchedules: true });
      await ensureSchedules(stack.deps);
      // Trigger the every-minute schedule now rather than waiting for it.
      await stack.deps.temporal.client.schedule.getHandle(RECONCILE_SCHEDULE_ID).trigger();
      const done = await waitForStatus(stack, res.body.id, ['extracted', 'failed'], 90_000);
      expect(done.status).toBe('extracted');
      expect((await factLines(stack, 'durable')).map((l) => l.slice(0, 2))).toContainEqual(['lives_in', 'Lisbon']);
    } finally {
      await stack.stop();
      await temporal.stop();
    }
  }, 180_000);

  it('a worker killed mid-extraction is replaced and the episode ends with exactly the facts of an undisturbed run', async () => {
    const stub = await startOpenAIStub({ fixedLatencyMs: 1_500 });
    stub.setResponder(providerResponder(new HeuristicProvider()));
    const stack = await startTestStack({
      withWorker: false,
      env: { LLM_PROVIDER: 'openai', OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'stub-key', LLM_TIMEOUT_MS: '10000' },
    });
    const content = 'Hana works at Kestrel. She lives in Osaka and prefers morning meetings.';
    try {
      const child = spawnWorkerProcess(stack.deps.config, { LLM_PROVIDER: 'openai', OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'stub-key', LLM_TIMEOUT_MS: '10000' });
      const res = await stack.request<{ id: string }>('POST', '/v1/memories', { namespace: 'killed', content, occurred_at: '2026-03-03T00:00:00Z' });
      // Wait until the external worker is inside a stage (a model call takes 1.5 s), then kill it.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const { rows } = await stack.deps.pool.query(`SELECT count(*)::int AS n FROM stage_run WHERE episode_id = $1 AND stage IN ('entity-resolve', 'fact-extract')`, [res.body.id]);
        if (rows[0].n > 0) break;
        if (Date.now() > deadline) throw new Error('external worker never reached fact extraction');
        await new Promise((r) => setTimeout(r, 50));
      }
      await stopProcess(child, 'SIGKILL');

      await stack.startWorker();
      const done = await waitForStatus(stack, res.body.id, ['extracted', 'failed'], 120_000);
      expect(done.status).toBe('extracted');

      const undisturbed = await remember(stack, { namespace: 'undisturbed', content, occurred_at: '2026-03-03T00:00:00Z' });
      expect(undisturbed.status).toBe('extracted');
      const expected = await factLines(stack, 'undisturbed');
      expect(expected.length).toBeGreaterThan(0);
      expect(await factLines(stack, 'killed')).toEqual(expected);
      const entities = await stack.deps.pool.query(`SELECT namespace, count(*)::int AS n FROM entity GROUP BY namespace ORDER BY namespace`);
      expect(entities.rows.find((r) => r.namespace === 'killed')?.n).toBe(entities.rows.find((r) => r.namespace === 'undisturbed')?.n);
    } finally {
      await stack.stop();
      await stub.close();
    }
  }, 240_000);
});
