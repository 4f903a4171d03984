import { ApplicationFailure, continueAsNew, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { DEFAULT_BATCH_HEARTBEAT_TIMEOUT_SECONDS } from '../core/temporal/batchHeartbeat.js';
import {
  DEFAULT_ERASURE_BATCH_SIZE,
  DEFAULT_ERASURE_BATCHES_PER_RUN,
  ERASURE_STEPS,
  eraseUserInputSchema,
  type EraseUserInput,
  type ErasureProgress,
  type ErasureSummary,
} from '../core/governance/contracts.js';

type ErasureActivities = Pick<Activities, 'beginErasure' | 'eraseUserBatch' | 'finishErasure' | 'failErasure'>;

// Each batch is one short transaction (plus a few workflow terminations) that heartbeats as it starts: a worker
// that dies mid-batch is noticed within the heartbeat timeout (15 s unless the input sets one) and the batch runs
// again elsewhere.
function erasureActivities(heartbeatTimeoutSeconds: number) {
  return proxyActivities<ErasureActivities>({
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: heartbeatTimeoutSeconds * 1000,
    // A database or Temporal outage of a quarter of an hour is waited out; past that the erasure fails (status `failed`) and a new DELETE restarts it.
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
  });
}

function message(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  return e.cause?.message ?? e.message ?? String(err);
}

/**
 * Erases one user of one namespace (id `erase:<namespace>:<user_id>`): stops
 * the user's extractions, tasks and sessions, then removes review items,
 * facts, entities and episodes in batches (one idempotent activity each),
 * keeping what another user's episodes also support, and leaves one audit row
 * naming the user by hash. Only ids and counts pass through this history.
 * Continues as new every few batches, carrying its step.
 */
export async function eraseUser(rawInput: EraseUserInput): Promise<ErasureSummary> {
  const parsed = eraseUserInputSchema.safeParse(rawInput);
  if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid eraseUser input: ${parsed.error.message}`, 'InvalidErasureInput');
  const input = parsed.data;
  const target = { namespace: input.namespace, userId: input.userId };
  const limit = input.batchSize ?? DEFAULT_ERASURE_BATCH_SIZE;
  const batchesPerRun = input.batchesPerRun ?? DEFAULT_ERASURE_BATCHES_PER_RUN;
  const activities = erasureActivities(input.heartbeatTimeoutSeconds ?? DEFAULT_BATCH_HEARTBEAT_TIMEOUT_SECONDS);

  let progress: ErasureProgress = input.progress ?? { step: ERASURE_STEPS[0], batches: 0 };
  if (!input.progress) await activities.beginErasure({ ...target, requestedBy: input.requestedBy });

  let batchesThisRun = 0;
  let finished = false;
  try {
    while (!finished && batchesThisRun < batchesPerRun && !workflowInfo().continueAsNewSuggested) {
      const result = await activities.eraseUserBatch({ ...target, step: progress.step, limit });
      batchesThisRun++;
      progress = { ...progress, batches: progress.batches + 1 };
      if (!result.done) continue;
      const next = ERASURE_STEPS.indexOf(progress.step) + 1;
      if (next < ERASURE_STEPS.length) progress = { ...progress, step: ERASURE_STEPS[next] };
      else finished = true;
    }
    if (finished) {
      const summary = await activities.finishErasure({ ...target, requestedBy: input.requestedBy, requestId: input.requestId });
      log.info('erasure completed', { batches: progress.batches });
      return summary;
    }
  } catch (err) {
    await activities.failErasure({ ...target, error: message(err) });
    throw err;
  }
  return continueAsNew<typeof eraseUser>({ ...input, progress });
}
