import type { Queryable } from '../db/pool.js';
import { toVectorSql } from '../db/pool.js';
import type { EmbeddingProvider } from '../extraction/types.js';
import type { EntityType } from '../domain/types.js';
import { expectedAnswerTypes } from './answerType.js';
import { conversationCandidates, loadConversationLinks, rerankByConversation } from './conversation.js';
import { fuse, type Fused } from './fusion.js';
import { hydrate } from './hydrate.js';
import { highlightTerms, keywordTsQuery } from './queryText.js';
import type { Recipe } from './recipes.js';
import { referenceTime, type ReadScope } from './scope.js';
import type { SignalInput } from './signals/context.js';
import { graphSignal, NOTHING_NAMED } from './signals/graph.js';
import { keywordBranches } from './signals/keyword.js';
import { runSignalStatement, type SignalBranchBuilder, type SignalBranches } from './signals/statement.js';
import { temporalBranches } from './signals/temporal.js';
import { vectorBranches } from './signals/vector.js';
import { SqlParams } from './sql.js';
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

/** Signals that need one query each: they share one statement, built in this order. */
const STATEMENT_SIGNALS: Array<[SignalName, SignalBranchBuilder]> = [
  ['keyword', keywordBranches],
  ['vector', vectorBranches],
  ['temporal', temporalBranches],
];

/** The order of the lists handed to fusion. */
const ORDER: SignalName[] = ['keyword', 'vector', 'graph', 'temporal'];

export interface SignalRankings {
  lists: RankedList[];
  /** How turns said by the people the query names are labelled (for conversation re-ranking). */
  speakerNames: string[];
  /** The entity types the query's answer is expected to be (for re-ranking). */
  answerTypes: EntityType[];
  /** The entities the query names, which are not its answer. */
  namedEntityIds: string[];
}

/** Every enabled signal's rankings for one query (what fusion works from; the tuning script caches them). */
export async function collectSignals(
  db: Queryable,
  embedder: EmbeddingProvider,
  scope: ReadScope,
  request: Omit<SearchRequest, 'k' | 'snippetChars'>,
): Promise<SignalRankings> {
  const { recipe } = request;
  // Embedded on first use; when the vector signal is on, right away, in the model's worker
  // thread, while the graph walk's first query (which needs no embedding) runs.
  let embedding: Promise<string> | undefined;
  const vector = () => (embedding ??= embedder.embed([request.query]).then(([v]) => toVectorSql(v)));
  if (recipe.weights.vector > 0) vector().catch(() => undefined); // awaited by the signals that use it
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
  // Sequential on purpose: one connection per request keeps the pool free for concurrent requests.
  // The graph walk goes first; its episodes join the other signals' statement.
  const graph = recipe.weights.graph > 0 ? await graphSignal(input) : NOTHING_NAMED;
  const p = new SqlParams();
  const parts: SignalBranches[] = [];
  const builders: Array<[SignalName, SignalBranchBuilder | null]> = [...STATEMENT_SIGNALS, ['graph', graph.episodes]];
  for (const [signal, build] of builders) {
    if (recipe.weights[signal] === 0 || !build) continue;
    const part = await build(input, p);
    if (part) parts.push(part);
  }
  const fromStatement = await runSignalStatement(db, p, parts);
  const lists = ORDER.flatMap((signal) => (signal === 'graph' ? [...graph.lists, ...(fromStatement.get('graph') ?? [])] : fromStatement.get(signal) ?? []));
  return { lists, speakerNames: graph.speakerNames, answerTypes: expectedAnswerTypes(request.query), namedEntityIds: graph.namedEntityIds };
}

/** Weighted RRF, then (when the recipe asks for it) conversation- and answer-type-aware re-ranking. */
export async function fuseAndRerank(db: Queryable, scope: ReadScope, rankings: SignalRankings, recipe: Recipe): Promise<Fused[]> {
  const fused = fuse(rankings.lists, recipe);
  // What the recipe switches off is not asked for.
  const query = {
    speakerNames: recipe.speaker_boost > 0 ? rankings.speakerNames : [],
    answerTypes: recipe.answer_type_boost > 0 ? rankings.answerTypes : [],
    namedEntityIds: rankings.namedEntityIds,
    subjectIds: recipe.answer_type_boost > 0 && recipe.direct_answer_boost > 0 ? rankings.namedEntityIds : [],
  };
  const neighbours = recipe.neighbour_weight > 0;
  if (!neighbours && !query.speakerNames.length && !query.answerTypes.length) return fused;
  const links = await loadConversationLinks(db, scope, conversationCandidates(fused, query, neighbours), query);
  return rerankByConversation(fused, links, recipe);
}

/** The fused, re-ranked candidates for the top `k` results, with a little slack: hydration drops rows that hang on forgotten entities. */
export async function searchCandidates(db: Queryable, embedder: EmbeddingProvider, scope: ReadScope, request: SearchRequest): Promise<Fused[]> {
  const fused = await fuseAndRerank(db, scope, await collectSignals(db, embedder, scope, request), request.recipe);
  return fused.slice(0, request.k + 5);
}

/**
 * Hybrid search on one connection: each enabled signal ranks candidates,
 * weighted RRF fuses them, conversation context re-ranks them, and the top k
 * are hydrated with snippet and provenance.
 */
export async function runSearch(
  db: Queryable,
  embedder: EmbeddingProvider,
  scope: ReadScope,
  request: SearchRequest,
): Promise<SearchResult[]> {
  const top = await searchCandidates(db, embedder, scope, request);
  const results = await hydrate(db, scope, top, highlightTerms(request.query), request.snippetChars);
  return results.slice(0, request.k);
}
