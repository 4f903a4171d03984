import {
  ApplicationFailure,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  upsertSearchAttributes,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { Activities } from '../activities/index.js';
import type { CommitResult, EpisodeSnapshot } from '../core/ingest/contracts.js';
import { ingestEpisodeInputSchema, type IngestEpisodeInput } from '../core/ingest/workflowInput.js';
import { MNEMO_EPISODE_STATUS, MNEMO_NAMESPACE, MNEMO_USER_ID } from '../core/temporal/searchAttributeKeys.js';

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

/** What each stage does, as the Temporal UI shows it beside the activity (`summary`). */
const STAGE_SUMMARIES: Record<keyof StageActivities, string> = {
  entityExtract: 'entity-extract: find the people, places and things the episode names',
  entityResolve: 'entity-resolve: match them to known entities or create new ones',
  factExtract: 'fact-extract: state what the episode says as facts',
  factDedup: 'fact-dedup: bind facts to entities, drop repeats',
  temporalResolve: 'temporal: resolve when each fact holds',
  contradiction: 'contradiction: plan supersessions of what no longer holds',
  commitEpisode: 'commit: write entities, facts and links in one transaction',
};

/** The stages' activities, each scheduled with its summary (one proxy per stage; the options are the same otherwise). */
function stageProxy(local: boolean, stage: keyof StageActivities): StageActivities {
  const summary = STAGE_SUMMARIES[stage];
  return local ? proxyLocalActivities<StageActivities>({ ...localStageOptions, summary }) : proxyActivities<StageActivities>({ ...modelStageOptions, summary });
}

/**
 * Search attributes for the Temporal UI (`MnemoNamespace="x" AND
 * MnemoEpisodeStatus="failed"`), registered at worker start. Behind a patch so
 * histories recorded before them replay unchanged.
 */
const SEARCH_ATTRIBUTES_PATCH = 'search-attributes-v1';

function markEpisode(usable: boolean | undefined, status: string, episode?: Pick<EpisodeSnapshot, 'namespace' | 'userId'>): void {
  // Only where the worker found them registered (a server rejects unregistered ones, failing the task).
  if (!usable || !patched(SEARCH_ATTRIBUTES_PATCH)) return;
  const updates: SearchAttributeUpdatePair[] = [{ key: MNEMO_EPISODE_STATUS, value: status }];
  if (episode) updates.push({ key: MNEMO_NAMESPACE, value: episode.namespace });
  if (episode?.userId) updates.push({ key: MNEMO_USER_ID, value: episode.userId });
  upsertSearchAttributes(updates);
}

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
  const stages = (name: keyof StageActivities) => stageProxy(input.localStages, name);
  const books = input.localStages ? localBookkeeping : bookkeeping;

  const begun = await books.beginExtraction({ episodeId: input.episodeId });
  if (!begun.proceed) {
    log.info('nothing to extract', { episodeId: input.episodeId, status: begun.status });
    markEpisode(begun.searchAttributes, begun.status);
    return { episodeId: input.episodeId, status: begun.status, entityIds: [], factIds: [] };
  }
  const { episode } = begun;
  markEpisode(begun.searchAttributes, 'extracting', episode);
  let stage = 'entity-extract';
  try {
    const candidates = await stages('entityExtract').entityExtract({ episode });
    stage = 'entity-resolve';
    const entities = await stages('entityResolve').entityResolve({ episode, entities: candidates });
    stage = 'fact-extract';
    const facts = await stages('factExtract').factExtract({ episode, entities });
    stage = 'fact-dedup';
    const bound = await stages('factDedup').factDedup({ episode, entities, facts });
    stage = 'temporal';
    const timed = await stages('temporalResolve').temporalResolve({ episode, facts: bound });
    stage = 'contradiction';
    const plan = await stages('contradiction').contradiction({ episode, facts: timed });
    stage = 'commit';
    const committed: CommitResult = await stages('commitEpisode').commitEpisode({ episode, entities, plan });
    markEpisode(begun.searchAttributes, 'extracted', episode);
    return { episodeId: episode.id, status: 'extracted', entityIds: committed.entityIds, factIds: committed.factIds };
  } catch (err) {
    const message = `stage ${stage} failed: ${reason(err)}`;
    await books.failExtraction({ episodeId: episode.id, error: message });
    markEpisode(begun.searchAttributes, 'failed', episode);
    throw ApplicationFailure.nonRetryable(message, 'ExtractionFailed');
  }
}
