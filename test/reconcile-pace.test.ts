import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createReconcileActivities } from '../activities/reconcile.js';
import { episodeWorkflowId } from '../core/ingest/contracts.js';
import { startTestStack, type TestStack } from './support/stack.js';

const NS = 'reconcile-pace';
const WINDOW = 3;

/**
 * Reconcile against a real database and Temporal server, with no worker on the
 * stack's task queue: every run it starts stays unclaimed, as when extraction
 * is far behind the writes.
 */
describe('reconcile starts pending extractions at the workers pace', () => {
  let stack: TestStack;
  const ids = Array.from({ length: 10 }, () => randomUUID());

  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false, env: { EXTRACTION_START_WINDOW: String(WINDOW) } });
    await stack.deps.pool.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [NS]);
    for (const [i, id] of ids.entries()) {
      await stack.deps.pool.query(
        `INSERT INTO episode (id, namespace, content, occurred_at, recorded_at, workflow_id) VALUES ($1, $2, $3, now(), now() - make_interval(secs => $4), $5)`,
        [id, NS, `Pending note ${i}.`, ids.length - i, episodeWorkflowId(id)],
      );
    }
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const reconcileOnce = () =>
    new MockActivityEnvironment().run(
      createReconcileActivities({ ...stack.deps, extractor: undefined as never }, { startBudgetMs: 1_500 }).startPendingExtractions,
      { limit: 2_000 },
    );

  async function openRuns(): Promise<string[]> {
    const open: string[] = [];
    for (const id of ids) {
      try {
        const run = await stack.deps.temporal.client.workflow.getHandle(episodeWorkflowId(id)).describe();
        if (run.status.name === 'RUNNING') open.push(id);
      } catch {
        // Never started.
      }
    }
    return open;
  }

  it('keeps at most the start window of its runs unclaimed, across runs, and starts the next as workers claim them', async () => {
    const first = await reconcileOnce();
    expect(first).toMatchObject({ found: 10, started: WINDOW });
    // The oldest first.
    expect(await openRuns()).toEqual(ids.slice(0, WINDOW));

    // Nothing claimed them: the next run finds them open, and they fill its window.
    const second = await reconcileOnce();
    expect(second).toMatchObject({ found: 10, started: 0 });
    expect(await openRuns()).toEqual(ids.slice(0, WINDOW));

    // A worker claims two: two more start, the next oldest.
    await stack.deps.pool.query(`UPDATE episode SET status = 'extracting' WHERE id = ANY($1::uuid[])`, [ids.slice(0, 2)]);
    const third = await reconcileOnce();
    expect(third).toMatchObject({ found: 8, started: 2 });
    expect(await openRuns()).toEqual(ids.slice(0, WINDOW + 2));
  }, 120_000);

  it('ends when its activity is cancelled (a worker shutting down) instead of waiting out its budget', async () => {
    // The window is full of unclaimed runs, so this run would wait its whole minute.
    const env = new MockActivityEnvironment();
    const activity = createReconcileActivities({ ...stack.deps, extractor: undefined as never }, { startBudgetMs: 60_000 }).startPendingExtractions;
    const begun = Date.now();
    const run = env.run(activity, { limit: 2_000 });
    setTimeout(() => env.cancel(), 500);
    await expect(run).rejects.toThrow();
    expect(Date.now() - begun).toBeLessThan(10_000);
    expect(await openRuns()).toEqual(ids.slice(0, WINDOW + 2));
  }, 120_000);
});
