import { ApplicationFailure, log, proxyActivities, proxyLocalActivities, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { CommitResult } from '../core/ingest/contracts.js';
import { ingestEpisodeInputSchema, type IngestEpisodeInput } from '../core/ingest/workflowInput.js';

type StageActivities = Pick<
  Activities,
  'entityExtract' | 'entityResolve' | 'factExtract' | 'factDedup' | 'temporalResolve' | 'contradiction' | 'commitEpisode'
>;

// Model calls can be slow and rate limited: generous timeout, backoff up to a minute.
const modelStageOptions: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  // Stages heartbeat every 2 s: a killed worker's attempt is retried elsewhere after 10 s.
  heartbeatTimeout: '10s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 6,
    nonRetryableErrorTypes: ['ModelRequestRejected', 'MalformedModelOutput', 'EmbeddingShapeMismatch', 'EpisodeNotFound'],
  },
};
// In-process stages (heuristic provider): fast, retried quickly.
const localStageOptions: LocalActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 6 },
};
const bookkeeping = proxyActivities<Pick<Activities, 'beginExtraction' | 'failExtraction'>>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
});
const localBookkeeping = proxyLocalActivities<Pick<Activities, 'beginExtraction' | 'failExtraction'>>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '10s' },
});
const remoteStages = proxyActivities<StageActivities>(modelStageOptions);
const localStages = proxyLocalActivities<StageActivities>(localStageOptions);

export interface IngestEpisodeResult {
  episodeId: string;
  status: 'extracted' | 'skipped' | string;
  entityIds: string[];
  factIds: string[];
}

function reason(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string; cause?: { message?: string } } };
  return e.cause?.cause?.message ?? e.cause?.message ?? e.message ?? String(err);
}

/**
 * One episode through the seven stages. Each stage is its own activity with
 * its own retries and stage_run rows; a stage that fails for good marks the
 * episode failed (still searchable) and fails this workflow so it shows up in
 * the Temporal UI, where it can be reset, or retried through the API.
 */
export async function ingestEpisode(rawInput: IngestEpisodeInput): Promise<IngestEpisodeResult> {
  const input = ingestEpisodeInputSchema.parse(rawInput);
  const stages = input.localStages ? localStages : remoteStages;
  const books = input.localStages ? localBookkeeping : bookkeeping;

  const begun = await books.beginExtraction({ episodeId: input.episodeId });
  if (!begun.proceed) {
    log.info('nothing to extract', { episodeId: input.episodeId, status: begun.status });
    return { episodeId: input.episodeId, status: begun.status, entityIds: [], factIds: [] };
  }
  const { episode } = begun;
  let stage = 'entity-extract';
  try {
    const candidates = await stages.entityExtract({ episode });
    stage = 'entity-resolve';
    const entities = await stages.entityResolve({ episode, entities: candidates });
    stage = 'fact-extract';
    const facts = await stages.factExtract({ episode, entities });
    stage = 'fact-dedup';
    const bound = await stages.factDedup({ episode, entities, facts });
    stage = 'temporal';
    const timed = await stages.temporalResolve({ episode, facts: bound });
    stage = 'contradiction';
    const plan = await stages.contradiction({ episode, facts: timed });
    stage = 'commit';
    const committed: CommitResult = await stages.commitEpisode({ episode, entities, plan });
    return { episodeId: episode.id, status: 'extracted', entityIds: committed.entityIds, factIds: committed.factIds };
  } catch (err) {
    const message = `stage ${stage} failed: ${reason(err)}`;
    await books.failExtraction({ episodeId: episode.id, error: message });
    throw ApplicationFailure.nonRetryable(message, 'ExtractionFailed');
  }
}
