import { Router } from 'express';
import type { Deps } from '../../core/deps.js';
import { loadErasure } from '../../core/governance/erasureRecord.js';
import { principalOf, requireRole } from '../auth.js';
import { notFound } from '../errors.js';

/** `GET /v1/erasures/:id` (operator keys): an erasure's progress, `id` being its workflow id `erase:<namespace>:<user_id>`. */
export function erasuresRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/erasures/:id', async (req, res) => {
    requireRole(req, 'operator');
    const erasure = await loadErasure(deps.pool, req.params.id);
    const own = principalOf(req).namespace;
    // Another namespace's erasure is indistinguishable from a missing one.
    if (!erasure || (own !== null && own !== erasure.namespace)) throw notFound('Erasure');
    res.json(erasure);
  });
  return router;
}
