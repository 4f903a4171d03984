import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

const { startPendingExtractions } = proxyActivities<Pick<Activities, 'startPendingExtractions'>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
});

/**
 * Runs every minute (a Temporal Schedule): no acknowledged episode stays
 * unextracted. Up to 2,000 a run, started at the workers' pace (see the
 * activity), so a backlog the API left `pending` after a burst drains as fast
 * as the workers extract without piling up in Temporal's queue.
 */
export async function reconcile(): Promise<{ found: number; started: number }> {
  return startPendingExtractions({ limit: 2_000 });
}
