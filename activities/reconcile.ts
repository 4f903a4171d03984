import { metricMeter } from '@temporalio/activity';
import { writeAudit } from '../core/audit/auditLog.js';
import { startPendingExtraction, runsStagesLocally } from '../core/ingest/startExtraction.js';
import { FORGOTTEN_BEFORE_EXTRACTION } from '../core/memories/forget.js';
import { startUnstartedReviewWorkflows } from '../core/reviews/reconcile.js';
import type { ActivityDeps } from './deps.js';

const RECONCILE_START_CONCURRENCY = 8;
/** Review workflows started per reconcile run (a backlog of old items drains over a few minutes). */
const REVIEW_STARTS_PER_RUN = 500;

export function createReconcileActivities(deps: ActivityDeps) {
  return {
    /**
     * Starts extraction for episodes the API accepted but could not hand to
     * Temporal (e.g. Temporal was down), and the `review:<id>` workflows of open
     * review items that have none. Safe to overlap with the API's own start.
     */
    async startPendingExtractions(input: { limit: number }): Promise<{ found: number; started: number; reviewsStarted: number }> {
      await skipForgottenPending(deps, input.limit);
      const { rows } = await deps.pool.query<{ id: string }>(
        `SELECT id FROM episode WHERE status = 'pending' AND forgotten_at IS NULL ORDER BY recorded_at LIMIT $1`,
        [input.limit],
      );
      let started = 0;
      let next = 0;
      // A few starts at a time: a backlog left by a burst drains faster than workers extract, without flooding Temporal.
      const lane = async () => {
        while (next < rows.length) {
          const row = rows[next++];
          // A pending episode may have a finished run (restored after a forget skipped it): start a new one.
          const outcome = await startPendingExtraction(deps.temporal, { episodeId: row.id, localStages: runsStagesLocally(deps.config) });
          if (outcome === 'started') started++;
        }
      };
      await Promise.all(Array.from({ length: RECONCILE_START_CONCURRENCY }, lane));
      if (rows.length) deps.logger.info({ found: rows.length, started }, 'reconcile started pending extractions');
      // Through the worker's Temporal metrics (WORKER_METRICS_ADDRESS; a no-op when they are off): reconcile keeps no row of its starts.
      metricMeter.createCounter('mnemo_reconcile_extractions_started', 'episodes', 'Extractions of pending episodes started by reconcile').add(started);
      // Same schedule, same activity: adding an activity call to the reconcile workflow would change its command sequence.
      const reviews = await startUnstartedReviewWorkflows(deps, REVIEW_STARTS_PER_RUN);
      return { found: rows.length, started, reviewsStarted: reviews.started };
    },
  };
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
