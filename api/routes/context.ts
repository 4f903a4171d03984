import { Router } from 'express';
import { z } from 'zod';
import type { Deps } from '../../core/deps.js';
import { buildContext } from '../../core/retrieval/context.js';
import { RECIPE_NAMES, recipeInputSchema, resolveRecipe, type RecipeInput } from '../../core/retrieval/recipes.js';
import { withReadClient } from '../../core/retrieval/sql.js';
import { queryBoolean } from '../schemas/common.js';
import { queryTextSchema, readScopeFields, readScopeOf, type ReadScopeInput } from './search.js';

const maxTokens = (n: z.ZodNumber) => n.int('must be an integer').min(1, 'must be between 1 and 32000').max(32_000, 'must be between 1 and 32000');

export const contextBodySchema = z.strictObject({
  query: queryTextSchema.optional(),
  ...readScopeFields,
  max_tokens: maxTokens(z.number()).default(1000),
  recipe: recipeInputSchema.optional(),
});

export const contextQuerySchema = z.strictObject({
  ...contextBodySchema.shape,
  max_tokens: maxTokens(z.coerce.number({ error: 'must be a number' })).default(1000),
  include_forgotten: queryBoolean.optional(),
  recipe: z.enum(RECIPE_NAMES as [string, ...string[]], { error: `unknown recipe; one of: ${RECIPE_NAMES.join(', ')}` }).optional(),
});

interface ContextInput extends ReadScopeInput {
  query?: string;
  max_tokens: number;
  recipe?: RecipeInput;
}

/** `GET|POST /v1/context`: the prompt-ready block of the subject's current facts and the most relevant memories. */
export function contextRoutes(deps: Deps): Router {
  const router = Router();
  const handle = (input: ContextInput, req: Parameters<typeof readScopeOf>[0]) => {
    const scope = readScopeOf(req, deps, input);
    const recipe = resolveRecipe(input.recipe, 'context');
    return withReadClient(deps.readPool, (db) => buildContext(db, deps.embedder, scope, { query: input.query, maxTokens: input.max_tokens, recipe, minConfidence: deps.config.DECAY_FLOOR }));
  };
  router.get('/context', async (req, res) => {
    res.json(await handle(contextQuerySchema.parse(req.query), req));
  });
  router.post('/context', async (req, res) => {
    res.json(await handle(contextBodySchema.parse(req.body ?? {}), req));
  });
  return router;
}
