import type { Deps } from '../deps.js';
import { startReviewWorkflows } from './start.js';

/**
 * Starts the workflow of every open review item that has none yet: items whose
 * start failed (Temporal was down) and items created before review workflows
 * existed. Run by the reconcile schedule every minute, and once by
 * `scripts/backfill-review-workflows.ts`. Oldest first, `limit` at a time.
 */
export async function startUnstartedReviewWorkflows(
  deps: Pick<Deps, 'pool' | 'temporal' | 'logger'>,
  limit: number,
): Promise<{ found: number; started: number }> {
  const { rows } = await deps.pool.query<{ id: string }>(
    `SELECT id FROM review_item WHERE status = 'open' AND workflow_id IS NULL ORDER BY created_at, id LIMIT $1`,
    [limit],
  );
  if (rows.length === 0) return { found: 0, started: 0 };
  const started = await startReviewWorkflows(deps, rows.map((r) => r.id));
  deps.logger.info({ found: rows.length, started }, 'reconcile started review workflows');
  return { found: rows.length, started };
}
