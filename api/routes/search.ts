import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Deps } from '../../core/deps.js';
import { recipeInputSchema, resolveRecipe } from '../../core/retrieval/recipes.js';
import type { ReadScope } from '../../core/retrieval/scope.js';
import { runSearch } from '../../core/retrieval/search.js';
import { withReadClient } from '../../core/retrieval/sql.js';
import type { ResultKind } from '../../core/retrieval/types.js';
import { namespaceFor, requireRole } from '../auth.js';
import { isoInstantSchema, namespaceSchema, scopeIdSchema } from '../schemas/common.js';

/** Longest query accepted: generous for pasted text, bounded so one request cannot hog the tokenizer and planner. */
export const MAX_QUERY_CHARS = 20_000;

export const queryTextSchema = z
  .string()
  // PostgreSQL text cannot hold NUL; it carries no meaning in a query anyway.
  .transform((s) => s.replaceAll(String.fromCharCode(0), '').trim())
  .pipe(z.string().min(1, 'must not be empty').max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`));

/** Scope fields every read accepts (JSON body form; the GET routes coerce their strings into the same shape). */
export const readScopeFields = {
  namespace: namespaceSchema.optional(),
  user_id: scopeIdSchema.optional(),
  agent_id: scopeIdSchema.optional(),
  run_id: scopeIdSchema.optional(),
  as_of: isoInstantSchema.optional(),
  include_forgotten: z.boolean().optional(),
};

export interface ReadScopeInput {
  namespace?: string;
  user_id?: string;
  agent_id?: string;
  run_id?: string;
  as_of?: string;
  include_forgotten?: boolean;
  include_stale?: boolean;
}

/** The scope of a read: the namespace this key may use (403 otherwise); forgotten rows only for operators. */
export function readScopeOf(req: Request, deps: Pick<Deps, 'now'>, input: ReadScopeInput): ReadScope {
  const namespace = namespaceFor(req, input.namespace);
  if (input.include_forgotten) requireRole(req, 'operator');
  return {
    namespace,
    userId: input.user_id,
    agentId: input.agent_id,
    runId: input.run_id,
    asOf: input.as_of ? new Date(input.as_of) : undefined,
    now: deps.now(),
    includeForgotten: input.include_forgotten === true,
    includeStale: input.include_stale === true,
  };
}

const KIND_NAMES = { episodes: 'episode', facts: 'fact', entities: 'entity' } as const satisfies Record<string, ResultKind>;

export const searchBodySchema = z.strictObject({
  query: queryTextSchema,
  ...readScopeFields,
  k: z.number().int('must be an integer').min(1, 'must be between 1 and 100').max(100, 'must be between 1 and 100').default(10),
  kinds: z
    .array(z.enum(['episodes', 'facts', 'entities']))
    .min(1, 'name at least one of episodes, facts, entities')
    .optional(),
  recipe: recipeInputSchema.optional(),
});

/** `POST /v1/search`: hybrid retrieval (vector, keyword, graph, temporal) fused by weighted RRF. */
export function searchRoutes(deps: Deps): Router {
  const router = Router();
  router.post('/search', async (req, res) => {
    const body = searchBodySchema.parse(req.body);
    const scope = readScopeOf(req, deps, body);
    const kinds = [...new Set((body.kinds ?? ['episodes', 'facts', 'entities']).map((k) => KIND_NAMES[k]))];
    const recipe = resolveRecipe(body.recipe);
    const results = await withReadClient(deps.readPool, (db) =>
      runSearch(db, deps.embedder, scope, { query: body.query, k: body.k, kinds, recipe }),
    );
    res.json({ results, recipe: recipe.name });
  });
  return router;
}
