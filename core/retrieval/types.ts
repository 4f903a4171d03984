/** What a search result is. */
export const RESULT_KINDS = ['episode', 'fact', 'entity'] as const;
export type ResultKind = (typeof RESULT_KINDS)[number];

/** The retrieval signals a recipe can weigh. */
export const SIGNALS = ['vector', 'keyword', 'graph', 'temporal'] as const;
export type SignalName = (typeof SIGNALS)[number];

/** One candidate inside one signal's ranking; `score` only orders hits within that list. */
export interface Hit {
  id: string;
  score: number;
}

/** A signal's ranking of one kind of row, best first. Fusion sees each list separately so kinds never compete on raw scores. */
export interface RankedList {
  signal: SignalName;
  kind: ResultKind;
  hits: Hit[];
}

export interface SearchResult {
  type: ResultKind;
  id: string;
  score: number;
  snippet: string;
  matched_by: SignalName[];
  /** Episodes the row came from (the episode itself for an episode). */
  episode_ids: string[];
  occurred_at: string | null;
  /** Who said it (episodes only). */
  speaker?: string | null;
}
