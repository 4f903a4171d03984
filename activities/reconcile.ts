import { setTimeout as sleep } from 'node:timers/promises';
import { Context, metricMeter } from '@temporalio/activity';
import { ExtractionDispatcher, unclaimedEpisodes } from '../core/ingest/dispatcher.js';
import { writeAudit } from '../core/audit/auditLog.js';
import { RECONCILE_SCHEDULE_ID } from '../core/ingest/contracts.js';
import { startPendingExtraction, runsStagesLocally } from '../core/ingest/startExtraction.js';
import { FORGOTTEN_BEFORE_EXTRACTION } from '../core/memories/forget.js';
import { withDeadline } from '../core/temporal/client.js';
import { startUnstartedReviewWorkflows } from '../core/reviews/reconcile.js';
import type { ActivityDeps } from './deps.js';

const RECONCILE_START_CONCURRENCY = 8;
/** Review workflows started per reconcile run (a backlog of old items drains over a few minutes). */
const REVIEW_STARTS_PER_RUN = 500;
/**
 * How long one run keeps starting extractions at the workers' pace, from its
 * start, at most: until shortly before the schedule's next run is due
 * (NEXT_RUN_MARGIN_MS), so a backlog drains with no pause between runs; a run
 * still open when the next is due would make the schedule skip that one.
 */
export const RECONCILE_START_BUDGET_MS = 57_000;
/** A run ends this long before the next is due; the window it started last keeps the workers busy meanwhile. */
const NEXT_RUN_MARGIN_MS = 3_000;
/** How often a run whose starts wait for the workers looks whether it is done. */
const WAIT_STEP_MS = 100;

export interface ReconcileOptions {
  /** How long a run keeps starting extractions (RECONCILE_START_BUDGET_MS). */
  startBudgetMs?: number;
}

export function createReconcileActivities(deps: ActivityDeps, options: ReconcileOptions = {}) {
  const budgetMs = options.startBudgetMs ?? RECONCILE_START_BUDGET_MS;
  return {
    /**
     * Starts extraction for episodes the API accepted but could not hand to
     * Temporal (e.g. Temporal was down, or its start queue was full), and the
     * `review:<id>` workflows of open review items that have none. Safe to
     * overlap with the API's own start.
     */
    async startPendingExtractions(input: { limit: number }): Promise<{ found: number; started: number; reviewsStarted: number }> {
      // From the run's start: however long the reviews take, the run ends before the schedule's next one is due.
      const deadline = Math.min(Date.now() + budgetMs, (await nextRunAt(deps)) - NEXT_RUN_MARGIN_MS);
      // Reviews first: the extractions below may wait most of a minute for the workers.
      const reviews = await startUnstartedReviewWorkflows(deps, REVIEW_STARTS_PER_RUN);
      await skipForgottenPending(deps, input.limit);
      const { rows } = await deps.pool.query<{ id: string }>(
        `SELECT id FROM episode WHERE status = 'pending' AND forgotten_at IS NULL ORDER BY recorded_at LIMIT $1`,
        [input.limit],
      );
      const { started } = await startAtWorkersPace(deps, rows.map((r) => r.id), deadline);
      if (rows.length) deps.logger.info({ found: rows.length, started }, 'reconcile started pending extractions');
      // Through the worker's Temporal metrics (WORKER_METRICS_ADDRESS; a no-op when they are off): reconcile keeps no row of its starts.
      metricMeter.createCounter('mnemo_reconcile_extractions_started', 'episodes', 'Extractions of pending episodes started by reconcile').add(started);
      // Same schedule, same activity: adding an activity call to the reconcile workflow would change its command sequence.
      return { found: rows.length, started, reviewsStarted: reviews.started };
    },
  };
}

/**
 * Starts the episodes in order the way the API's dispatcher does: at most
 * EXTRACTION_START_WINDOW of them started and not yet claimed by a worker, the
 * next one as a worker claims one, until all are started or the deadline
 * passes (the rest stay `pending` for the next run). Starting a whole backlog
 * at once parked up to 2,000 runs a minute in Temporal's queue, which cost the
 * Temporal server and the worker CPU for nothing the workers could take yet
 * (bench:write at 1,000 writes/s beside one worker: 7.7-11.5 episodes/s
 * extracted meanwhile, 12.7-14.5 at the workers' pace). An episode whose run
 * is already open (started by the previous run or by the API) takes its place
 * in the window: across runs, runs nobody claims stay bounded by the window.
 */
async function startAtWorkersPace(deps: ActivityDeps, episodeIds: string[], deadline: number): Promise<{ started: number }> {
  let started = 0;
  let failure: unknown;
  const localStages = runsStagesLocally(deps.config);
  const dispatcher = new ExtractionDispatcher(
    async (episodeId) => {
      try {
        // A pending episode may have a finished run (restored after a forget skipped it): start a new one.
        if ((await startPendingExtraction(deps.temporal, { episodeId, localStages })) === 'started') started++;
        return true;
      } catch (err) {
        // As before, the first start Temporal refuses ends the run (Temporal retries it): the next would likely fail too.
        failure ??= err;
        dispatcher.stop();
        return false;
      }
    },
    deps.logger,
    {
      maxInFlight: RECONCILE_START_CONCURRENCY,
      maxQueued: episodeIds.length,
      startsPerSecond: deps.config.EXTRACTION_STARTS_PER_SECOND,
      maxUnclaimed: deps.config.EXTRACTION_START_WINDOW,
    },
    undefined,
    (ids) => unclaimedEpisodes(deps.pool, ids),
  );
  episodeIds.forEach((id) => dispatcher.enqueue(id));
  try {
    // The activity's own sleep: a worker shutting down cancels it rather than waiting out the budget.
    while (dispatcher.pending > 0 && Date.now() < deadline) await Context.current().sleep(WAIT_STEP_MS);
  } finally {
    dispatcher.stop();
  }
  // The starts already sent (each bounded by its deadline) finish, so the count is complete.
  while (dispatcher.pending > 0) await sleep(WAIT_STEP_MS);
  if (failure !== undefined) throw failure;
  return { started };
}

/** When the reconcile schedule runs next (Infinity when it cannot be read, e.g. a test without schedules). */
async function nextRunAt(deps: ActivityDeps): Promise<number> {
  try {
    const { info } = await withDeadline(deps.temporal, 5_000, () => deps.temporal.client.schedule.getHandle(RECONCILE_SCHEDULE_ID).describe());
    return info.nextActionTimes[0]?.getTime() ?? Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * Episodes forgotten while pending before forget settled their status (older
 * versions left them `pending` for good): they end skipped with the reason,
 * as a forget does now. A restore makes them pending and extracts them.
 */
async function skipForgottenPending(deps: ActivityDeps, limit: number): Promise<void> {
  const { rows } = await deps.pool.query<{ id: string; namespace: string }>(
    `UPDATE episode SET status = 'skipped', error = $2, updated_at = now()
      WHERE id IN (SELECT id FROM episode WHERE status = 'pending' AND forgotten_at IS NOT NULL ORDER BY recorded_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        AND status = 'pending' AND forgotten_at IS NOT NULL
      RETURNING id, namespace`,
    [limit, FORGOTTEN_BEFORE_EXTRACTION],
  );
  for (const row of rows) {
    await writeAudit(deps.pool, { namespace: row.namespace, actor: 'workflow:reconcile', episodeId: row.id }, [
      { action: 'episode.skipped', targetType: 'episode', targetId: row.id, before: { status: 'pending' }, after: { status: 'skipped', error: FORGOTTEN_BEFORE_EXTRACTION } },
    ]);
  }
}
