// npx tsx scripts/backfill-review-workflows.ts
//
// Starts the `review:<id>` workflow of every open review item that has none:
// items created before review workflows existed, or whose start failed while
// Temporal was down. The reconcile schedule runs the same query every minute
// (500 items a run); this drains a large backlog at once. Needs DATABASE_URL
// and TEMPORAL_ADDRESS like `npm run worker`. Safe to run again (idempotent).
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { startUnstartedReviewWorkflows } from '../core/reviews/reconcile.js';

const BATCH = 500;
const deps = buildDeps(loadConfig());
try {
  const remaining = async () =>
    (await deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM review_item WHERE status = 'open' AND workflow_id IS NULL`)).rows[0].n;
  let total = 0;
  for (let left = await remaining(); left > 0; ) {
    total += (await startUnstartedReviewWorkflows(deps, BATCH)).started;
    const now = await remaining();
    // No item got its workflow: Temporal is unreachable (the reconcile schedule will catch up later).
    if (now >= left) throw new Error(`could not start the workflows of ${now} open review items: is Temporal reachable?`);
    left = now;
  }
  console.log(`[backfill] started ${total} review workflows`);
} finally {
  await deps.close();
}
