import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Config } from '../config/config.js';
import type { TemporalHandle } from '../temporal/client.js';
import { withDeadline } from '../temporal/client.js';
import { episodeWorkflowId, WORKFLOW_NAMES } from './contracts.js';
import type { IngestEpisodeInput } from './workflowInput.js';

/**
 * EXTRACTION_STAGES decides; unset, stages run as local activities unless they
 * call a network model: the heuristic provider's stages are in-process, so
 * they skip the round trips through Temporal (still retried and recorded, as
 * markers). `activities` shows each stage as its own activity in the UI, with
 * input, attempts and timing, at the cost of a task round trip per stage.
 */
export function runsStagesLocally(config: Pick<Config, 'LLM_PROVIDER' | 'EXTRACTION_STAGES'>): boolean {
  if (config.EXTRACTION_STAGES) return config.EXTRACTION_STAGES === 'local';
  return config.LLM_PROVIDER === 'heuristic';
}

const HEURISTIC_LOCAL_ACTIVITIES = 8;
const MODEL_LOCAL_ACTIVITIES = 50;

/**
 * How many local activities (the stages, when they run locally) a worker runs
 * at once, unless EXTRACTION_CONCURRENCY says. The heuristic stages are CPU
 * work on the worker's one event loop: run fifty at once and every commit
 * transaction waits, between its statements, behind other episodes' parsing,
 * holding its locks (and on the embedded default the one PGlite session reads
 * need). Eight keep a worker's throughput; four cost a server a quarter of it
 * (README, Behaviour under overload). A model provider's stages wait on the
 * network, so more at once is what makes them fast.
 */
export function localActivityConcurrency(config: Pick<Config, 'LLM_PROVIDER' | 'EXTRACTION_CONCURRENCY'>): number {
  return config.EXTRACTION_CONCURRENCY ?? (config.LLM_PROVIDER === 'heuristic' ? HEURISTIC_LOCAL_ACTIVITIES : MODEL_LOCAL_ACTIVITIES);
}

export type StartOutcome = 'started' | 'already-running';

/**
 * Starts `ingestEpisode` for an episode. Idempotent: the workflow id is the
 * episode's, a running extraction is attached to rather than duplicated, and a
 * finished successful one is never re-run (only failed ones may be retried).
 */
export async function startExtraction(
  temporal: TemporalHandle,
  input: IngestEpisodeInput,
  deadlineMs = 5_000,
): Promise<StartOutcome> {
  return startIngestRun(temporal, input, deadlineMs, { workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY });
}

/**
 * Starts extraction of an episode found `pending` (reconcile): a finished run
 * of the same id does not block it (it may have ended without extracting, e.g.
 * skipped by a forget that a restore undid). Still idempotent: a running
 * extraction is attached to, and beginExtraction claims only pending/failed
 * episodes, so an extracted one is never extracted twice.
 */
export async function startPendingExtraction(temporal: TemporalHandle, input: IngestEpisodeInput, deadlineMs = 5_000): Promise<StartOutcome> {
  return startIngestRun(temporal, input, deadlineMs, { workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE });
}

/**
 * Extraction of a restored episode that a forget had skipped: a run of the
 * same id still open can only be one ending without extracting it (it found
 * the episode skipped) or one about to claim it, so it is replaced by a new
 * run rather than attached to.
 */
export async function restartExtraction(temporal: TemporalHandle, input: IngestEpisodeInput, deadlineMs = 5_000): Promise<StartOutcome> {
  return startIngestRun(temporal, input, deadlineMs, {
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.TERMINATE_EXISTING,
  });
}

async function startIngestRun(
  temporal: TemporalHandle,
  input: IngestEpisodeInput,
  deadlineMs: number,
  policies: { workflowIdReusePolicy: WorkflowIdReusePolicy; workflowIdConflictPolicy?: WorkflowIdConflictPolicy },
): Promise<StartOutcome> {
  try {
    await withDeadline(temporal, deadlineMs, () =>
      temporal.client.workflow.start(WORKFLOW_NAMES.ingestEpisode, {
        workflowId: episodeWorkflowId(input.episodeId),
        taskQueue: temporal.taskQueue,
        args: [input],
        ...policies,
      }),
    );
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already-running';
    throw err;
  }
}
