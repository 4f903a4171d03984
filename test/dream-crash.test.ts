import { randomUUID } from 'node:crypto';
import type { DreamReport } from '../core/dream/contracts.js';
import { dreamFixtures } from './support/dreamFixtures.js';
import { eventually } from './support/eventually.js';
import { startTestStack, type TestStack } from './support/stack.js';
import { spawnWorkerProcess, stopProcess } from './support/workerProcess.js';

const T = new Date('2026-06-01T03:00:00Z');
const daysBefore = (days: number) => new Date(T.getTime() - days * 86_400_000);
const FACTS = 40;
/** One fact per decay batch: the run is many activities long, so the kill lands in its middle. */
const SMALL = { batchSizes: { decay: 1, session_expiry: 2, duplicates: 2, reembed: 2 }, batchesPerRun: 10 };

/**
 * A worker process SIGKILLed in the middle of a dream run: another worker
 * takes the run over and it completes once, with the report (and the writes)
 * of the same run undisturbed on the same data.
 */
describe('a dream run whose worker is killed', () => {
  let stack: TestStack;
  const fixtures = dreamFixtures(() => stack);

  beforeAll(async () => {
    stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' }, withWorker: false });
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function seed(ns: string): Promise<void> {
    const subject = await fixtures.entity(ns, 'Ines Moreau');
    for (let i = 0; i < FACTS; i++) {
      await fixtures.fact(ns, subject, { text: `Ines likes thing ${i}.`, confidence: 0.7, decayClass: 'fast_decay', confirmedAt: daysBefore(5 * i) });
    }
  }

  const storedRun = async (runId: string) =>
    (await stack.deps.pool.query<{ status: string; report: DreamReport }>('SELECT status, report FROM dream_run WHERE id = $1', [runId])).rows[0];

  it('completes once with the report of an undisturbed run', async () => {
    const killed = await fixtures.namespace('dream-killed');
    const undisturbed = await fixtures.namespace('dream-undisturbed');
    await seed(killed);
    await seed(undisturbed);

    const worker = spawnWorkerProcess(stack.deps.config, { EMBEDDING_PROVIDER: 'hash' });
    const runId = randomUUID();
    let handle;
    try {
      // A short heartbeat timeout: the killed worker's batch moves to the new worker within seconds, not the default 15 s.
      handle = await fixtures.startDream({ runId, namespace: killed, now: T.toISOString(), ...SMALL, heartbeatTimeoutSeconds: 4 });
      await eventually(() => storedRun(runId), (run) => (run?.report?.totals?.batches ?? 0) >= 5, 'five batches done by the external worker', 90_000, 20);
    } finally {
      await stopProcess(worker, 'SIGKILL');
    }
    const midway = await storedRun(runId);
    expect(midway.status).toBe('running');
    expect(midway.report.passes.decay.facts_updated).toBeLessThan(FACTS);

    await stack.startWorker();
    const report = await handle.result();
    const reference = await fixtures.runDream({ runId: randomUUID(), namespace: undisturbed, now: T.toISOString(), ...SMALL });
    expect(fixtures.counts(report)).toEqual(fixtures.counts(reference));
    expect(report.passes.decay.facts_updated).toBe(FACTS);
    expect(report.totals.batches).toBe(reference.totals.batches);
    expect((await storedRun(runId)).status).toBe('completed');

    // Every fact decayed once, at the run's instant, to the same value as undisturbed.
    const decayed = async (ns: string) =>
      (
        await stack.deps.pool.query<{ fact_text: string; effective_confidence: number; stale: boolean }>(
          `SELECT fact_text, effective_confidence, stale FROM fact WHERE namespace = $1 AND decayed_at = $2 ORDER BY fact_text`,
          [ns, T],
        )
      ).rows;
    expect(await decayed(killed)).toEqual(await decayed(undisturbed));
    const audits = async (ns: string) =>
      (await stack.deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log WHERE namespace = $1 AND action = 'fact.decayed'`, [ns])).rows[0].n;
    expect(await audits(killed)).toBe(await audits(undisturbed));
  }, 180_000);
});
