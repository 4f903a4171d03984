import { runsStagesLocally, startExtraction } from '../core/ingest/startExtraction.js';
import type { ActivityDeps } from './deps.js';

const RECONCILE_START_CONCURRENCY = 8;

export function createReconcileActivities(deps: ActivityDeps) {
  return {
    /**
     * Starts extraction for episodes the API accepted but could not hand to
     * Temporal (e.g. Temporal was down). Safe to overlap with the API's own start.
     */
    async startPendingExtractions(input: { limit: number }): Promise<{ found: number; started: number }> {
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
          const outcome = await startExtraction(deps.temporal, { episodeId: row.id, localStages: runsStagesLocally(deps.config) });
          if (outcome === 'started') started++;
        }
      };
      await Promise.all(Array.from({ length: RECONCILE_START_CONCURRENCY }, lane));
      if (rows.length) deps.logger.info({ found: rows.length, started }, 'reconcile started pending extractions');
      return { found: rows.length, started };
    },
  };
}
