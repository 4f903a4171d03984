import type { Queryable } from '../../db/pool.js';
import type { Recipe } from '../recipes.js';
import type { ReadScope } from '../scope.js';
import type { TimeWindow } from '../timeWindow.js';
import type { ResultKind } from '../types.js';

/** Everything a signal needs about one search, computed once per request. */
export interface SignalInput {
  db: Queryable;
  scope: ReadScope;
  recipe: Recipe;
  kinds: ReadonlySet<ResultKind>;
  query: string;
  /** pgvector text of the query embedding, computed once on first use (a query without a named time or entity may need none). */
  vector: () => Promise<string>;
  /** OR tsquery text, null when the query has no searchable word. */
  tsquery: string | null;
  window: TimeWindow | null;
}
