import { ApplicationFailure, continueAsNew, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { DEFAULT_BATCH_HEARTBEAT_TIMEOUT_SECONDS } from '../core/temporal/batchHeartbeat.js';
import {
  DEFAULT_BATCH_SIZES,
  DEFAULT_BATCHES_PER_RUN,
  DREAM_PASSES,
  dreamInputSchema,
  type DreamBatchInput,
  type DreamBatchResult,
  type DreamInput,
  type DreamPass,
  type DreamProgress,
  type DreamReport,
} from '../core/dream/contracts.js';
import { nextPass } from '../core/dream/report.js';

type DreamActivities = Pick<
  Activities,
  'beginDreamRun' | 'dreamDecay' | 'dreamExpireSessions' | 'dreamProposeMerges' | 'dreamReembed' | 'finishDreamRun' | 'failDreamRun'
>;

// Batches are short SQL transactions (re-embedding runs the model over a few hundred texts) that heartbeat
// as they start: a worker that dies mid-batch is noticed within the heartbeat timeout (15 s unless the input
// sets one) and the batch runs again elsewhere.
function dreamActivities(heartbeatTimeoutSeconds: number) {
  const activities = proxyActivities<DreamActivities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: heartbeatTimeoutSeconds * 1000,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10, nonRetryableErrorTypes: ['DreamRunNotFound'] },
  });
  const byPass: Record<DreamPass, (input: DreamBatchInput) => Promise<DreamBatchResult>> = {
    decay: activities.dreamDecay,
    session_expiry: activities.dreamExpireSessions,
    duplicates: activities.dreamProposeMerges,
    reembed: activities.dreamReembed,
  };
  return { activities, byPass };
}

function message(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  return e.cause?.message ?? e.message ?? String(err);
}

/**
 * The nightly dream (schedule `dream`, or on demand as `dream:<run id>`), over
 * one namespace or all of them: decay (persisted effective confidence, stale
 * facts), working-memory expiry, duplicate-entity merge proposals,
 * re-embedding, then the run report. Each pass runs in batches, one activity
 * each, applied exactly once however often retried; the run continues as new
 * every few hundred batches, carrying its position and partial report.
 */
export async function dream(rawInput?: DreamInput): Promise<DreamReport> {
  const input = dreamInputSchema.parse(rawInput ?? {});
  const namespace = input.namespace ?? null;
  // Workflow time: the same instant on replay, and carried across continue-as-new so one run decays at one instant.
  const now = input.now ?? new Date().toISOString();
  if (Number.isNaN(Date.parse(now))) throw ApplicationFailure.nonRetryable(`now must be an ISO instant, got "${now}"`, 'InvalidDreamInput');
  const batchSizes = { ...DEFAULT_BATCH_SIZES, ...input.batchSizes };
  const batchesPerRun = input.batchesPerRun ?? DEFAULT_BATCHES_PER_RUN;
  const { activities, byPass } = dreamActivities(input.heartbeatTimeoutSeconds ?? DEFAULT_BATCH_HEARTBEAT_TIMEOUT_SECONDS);

  let progress: DreamProgress;
  if (input.progress) {
    progress = input.progress;
  } else {
    const begun = await activities.beginDreamRun({ workflowId: workflowInfo().workflowId, runId: input.runId, namespace, requestedBy: input.requestedBy });
    if (begun.completed) return begun.report;
    progress = { runId: begun.runId, pass: DREAM_PASSES[0], cursor: null, batch: 0, report: begun.report };
  }

  let batchesThisRun = 0;
  let finished = false;
  try {
    while (!finished && batchesThisRun < batchesPerRun && !workflowInfo().continueAsNewSuggested) {
      const result = await byPass[progress.pass]({
        runId: progress.runId,
        scope: namespace,
        cursor: progress.cursor,
        batch: progress.batch + 1,
        now,
        limit: batchSizes[progress.pass],
      });
      batchesThisRun++;
      progress = { ...progress, batch: progress.batch + 1, cursor: result.next, report: result.report };
      if (result.next === null) {
        const following = nextPass(DREAM_PASSES, progress.pass);
        if (following) progress = { ...progress, pass: following };
        else finished = true;
      }
    }
    if (finished) {
      const report = await activities.finishDreamRun({ runId: progress.runId });
      log.info('dream run completed', { runId: progress.runId, batches: report.totals.batches });
      return report;
    }
  } catch (err) {
    await activities.failDreamRun({ runId: progress.runId, error: message(err) });
    throw err;
  }
  return continueAsNew<typeof dream>({ ...input, namespace, now, progress });
}
