import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

const { startPendingExtractions } = proxyActivities<Pick<Activities, 'startPendingExtractions'>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
});

/** Runs every minute (a Temporal Schedule): no acknowledged episode stays unextracted. */
export async function reconcile(): Promise<{ found: number; started: number }> {
  return startPendingExtractions({ limit: 500 });
}
