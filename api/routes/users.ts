import { Router } from 'express';
import { z } from 'zod';
import type { Deps } from '../../core/deps.js';
import { userProfile } from '../../core/retrieval/profile.js';
import { withReadClient } from '../../core/retrieval/sql.js';
import { isoInstantSchema, namespaceSchema, queryBoolean, scopeIdSchema } from '../schemas/common.js';
import { readScopeOf } from './search.js';

const profileQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  as_of: isoInstantSchema.optional(),
  include_forgotten: queryBoolean.optional(),
});

const userParams = z.object({ user_id: scopeIdSchema });

/** `GET /v1/users/:user_id/profile`: the user's active facts grouped by family. */
export function userRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/users/:user_id/profile', async (req, res) => {
    const { user_id } = userParams.parse(req.params);
    const q = profileQuerySchema.parse(req.query);
    const scope = { ...readScopeOf(req, deps, { ...q, user_id }), userId: user_id };
    res.json(await withReadClient(deps.readPool, (db) => userProfile(db, scope)));
  });
  return router;
}
