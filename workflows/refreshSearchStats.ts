import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

const { refreshSearchStats: refresh } = proxyActivities<Pick<Activities, 'refreshSearchStats'>>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** Runs every few minutes (a Temporal Schedule): keeps the keyword signal's term rarity in step with the data. */
export async function refreshSearchStats(): Promise<{ lexemes: number }> {
  return refresh();
}
