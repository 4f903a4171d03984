import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Config } from '../config/config.js';
import type { TemporalHandle } from '../temporal/client.js';
import { withDeadline } from '../temporal/client.js';
import { episodeWorkflowId, WORKFLOW_NAMES } from './contracts.js';
import type { IngestEpisodeInput } from './workflowInput.js';

/**
 * Stages run as local activities unless they call a network model: the
 * heuristic provider's stages are in-process, so they skip the round trips
 * through Temporal (they are still retried and recorded).
 */
export function runsStagesLocally(config: Pick<Config, 'LLM_PROVIDER'>): boolean {
  return config.LLM_PROVIDER === 'heuristic';
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
  try {
    await withDeadline(temporal, deadlineMs, () =>
      temporal.client.workflow.start(WORKFLOW_NAMES.ingestEpisode, {
        workflowId: episodeWorkflowId(input.episodeId),
        taskQueue: temporal.taskQueue,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      }),
    );
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already-running';
    throw err;
  }
}
