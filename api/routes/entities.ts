import { Router } from 'express';
import { z } from 'zod';
import type { Deps } from '../../core/deps.js';
import { entityTypeSchema } from '../../core/domain/types.js';
import { listEntities } from '../../core/retrieval/entities.js';
import { entityMemory } from '../../core/retrieval/entityMemory.js';
import { neighborhood } from '../../core/retrieval/neighborhood.js';
import { withReadClient } from '../../core/retrieval/sql.js';
import { notFound } from '../errors.js';
import { isoInstantSchema, namespaceSchema, queryBoolean, scopeIdSchema, uuidSchema } from '../schemas/common.js';
import { readScopeOf } from './search.js';

const scopeQuery = {
  namespace: namespaceSchema.optional(),
  user_id: scopeIdSchema.optional(),
  as_of: isoInstantSchema.optional(),
  include_forgotten: queryBoolean.optional(),
  /** Facts the dream marked stale too (kept for history). */
  include_stale: queryBoolean.optional(),
};

export const listQuerySchema = z.strictObject({
  ...scopeQuery,
  q: z.string().trim().min(1, 'must not be empty').max(200).optional(),
  type: entityTypeSchema.optional(),
  limit: z.coerce.number({ error: 'must be a number' }).int().min(1).max(100).default(20),
});

export const byIdQuerySchema = z.strictObject(scopeQuery);

export const neighborhoodQuerySchema = z.strictObject({
  ...scopeQuery,
  depth: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be 1, 2 or 3').max(3, 'must be 1, 2 or 3').default(1),
  max_nodes: z.coerce.number({ error: 'must be a number' }).int().min(1).max(1000).default(200),
});

export const idParams = z.object({ id: uuidSchema });

/** `GET /v1/entities`, `/v1/entities/:id` (entity memory) and `/v1/entities/:id/neighborhood`. */
export function entityRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/entities', async (req, res) => {
    const q = listQuerySchema.parse(req.query);
    const scope = readScopeOf(req, deps, q);
    const entities = await withReadClient(deps.readPool, (db) => listEntities(db, scope, { q: q.q, type: q.type, limit: q.limit }));
    res.json({ entities });
  });

  router.get('/entities/:id', async (req, res) => {
    const { id } = idParams.parse(req.params);
    const scope = readScopeOf(req, deps, byIdQuerySchema.parse(req.query));
    // Another namespace's entity is indistinguishable from a missing one.
    const memory = await withReadClient(deps.readPool, (db) => entityMemory(db, scope, id));
    if (!memory) throw notFound('Entity');
    res.json(memory);
  });

  router.get('/entities/:id/neighborhood', async (req, res) => {
    const { id } = idParams.parse(req.params);
    const q = neighborhoodQuerySchema.parse(req.query);
    const scope = readScopeOf(req, deps, q);
    const graph = await withReadClient(deps.readPool, (db) => neighborhood(db, scope, id, q.depth, q.max_nodes));
    if (!graph) throw notFound('Entity');
    res.json(graph);
  });

  return router;
}
