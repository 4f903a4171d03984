import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The custom search attributes `ingestEpisode` sets, so an operator finds
 * "failed extractions of namespace X" with one Temporal UI filter:
 * `MnemoNamespace="X" AND MnemoEpisodeStatus="failed"`. Workflow-safe (the
 * workflow imports it); names are public API, stored in visibility.
 */
export const MNEMO_NAMESPACE = defineSearchAttributeKey('MnemoNamespace', SearchAttributeType.KEYWORD);
export const MNEMO_USER_ID = defineSearchAttributeKey('MnemoUserId', SearchAttributeType.KEYWORD);
export const MNEMO_EPISODE_STATUS = defineSearchAttributeKey('MnemoEpisodeStatus', SearchAttributeType.KEYWORD);

export const MNEMO_SEARCH_ATTRIBUTES = [MNEMO_NAMESPACE, MNEMO_USER_ID, MNEMO_EPISODE_STATUS] as const;
