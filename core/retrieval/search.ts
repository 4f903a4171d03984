import type { Queryable } from '../db/pool.js';
import { toVectorSql } from '../db/pool.js';
import type { EmbeddingProvider } from '../extraction/types.js';
import { fuse } from './fusion.js';
import { hydrate } from './hydrate.js';
import { highlightTerms, keywordTsQuery } from './queryText.js';
import type { Recipe } from './recipes.js';
import { referenceTime, type ReadScope } from './scope.js';
import type { SignalInput } from './signals/context.js';
import { graphSignal } from './signals/graph.js';
import { keywordSignal } from './signals/keyword.js';
import { temporalSignal } from './signals/temporal.js';
import { vectorSignal } from './signals/vector.js';
import { parseTimeWindow } from './timeWindow.js';
import type { RankedList, ResultKind, SearchResult, SignalName } from './types.js';

export interface SearchRequest {
  query: string;
  k: number;
  kinds: ResultKind[];
  recipe: Recipe;
  /** Snippet length in characters (context blocks want more than result lists). */
  snippetChars?: number;
}

const SIGNAL_RUNNERS: Record<SignalName, (input: SignalInput) => Promise<RankedList[]>> = {
  vector: vectorSignal,
  keyword: keywordSignal,
  graph: graphSignal,
  temporal: temporalSignal,
};

/** Signals in the order they run; weight 0 skips a signal's queries entirely. Keyword goes first: it needs no embedding, which is computed meanwhile. */
const ORDER: SignalName[] = ['keyword', 'vector', 'graph', 'temporal'];

/** Every enabled signal's rankings for one query (what fusion works from; the tuning script caches them). */
export async function collectSignals(
  db: Queryable,
  embedder: EmbeddingProvider,
  scope: ReadScope,
  request: Omit<SearchRequest, 'k' | 'snippetChars'>,
): Promise<RankedList[]> {
  const { recipe } = request;
  // Embedded on first use; when the vector signal is on, right away: the keyword query is sent
  // first, and Postgres executes it while the model runs here.
  let embedding: Promise<string> | undefined;
  const vector = () => (embedding ??= embedder.embed([request.query]).then(([v]) => toVectorSql(v)));
  if (recipe.weights.vector > 0) vector().catch(() => undefined); // awaited by the vector signal
  const input: SignalInput = {
    db,
    scope,
    recipe,
    kinds: new Set(request.kinds),
    query: request.query,
    vector,
    tsquery: keywordTsQuery(request.query),
    window: recipe.weights.temporal > 0 ? parseTimeWindow(request.query, referenceTime(scope)) : null,
  };
  const lists: RankedList[] = [];
  // Sequential on purpose: one connection per request keeps the pool free for concurrent requests.
  for (const signal of ORDER) {
    if (recipe.weights[signal] > 0) lists.push(...(await SIGNAL_RUNNERS[signal](input)));
  }
  return lists;
}

/**
 * Hybrid search on one connection (the caller's read transaction): each
 * enabled signal ranks candidates, weighted RRF fuses them, and the top k are
 * hydrated with snippet and provenance.
 */
export async function runSearch(
  db: Queryable,
  embedder: EmbeddingProvider,
  scope: ReadScope,
  request: SearchRequest,
): Promise<SearchResult[]> {
  const lists = await collectSignals(db, embedder, scope, request);
  const fused = fuse(lists, request.recipe);
  // A little slack: hydration drops rows that hang on forgotten entities.
  const top = fused.slice(0, request.k + 5);
  const results = await hydrate(db, scope, top, highlightTerms(request.query), request.snippetChars);
  return results.slice(0, request.k);
}
