import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

const { startPendingExtractions } = proxyActivities<Pick<Activities, 'startPendingExtractions'>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
});

/**
 * Runs every minute (a Temporal Schedule): no acknowledged episode stays
 * unextracted. 2,000 a minute outpaces a worker's extraction, so a backlog the
 * API left `pending` after a burst never waits on reconcile.
 */
export async function reconcile(): Promise<{ found: number; started: number }> {
  return startPendingExtractions({ limit: 2_000 });
}
