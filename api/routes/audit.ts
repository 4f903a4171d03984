import { Router } from 'express';
import { z } from 'zod';
import type { Deps } from '../../core/deps.js';
import { listAudit } from '../../core/governance/auditQuery.js';
import { namespaceFor, requireRole } from '../auth.js';
import { isoInstantSchema, namespaceSchema } from '../schemas/common.js';

export const auditQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  target_type: z.string().trim().min(1).max(100).optional(),
  target_id: z.string().trim().min(1).max(300).optional(),
  actor: z.string().trim().min(1).max(300).optional(),
  since: isoInstantSchema.optional(),
  cursor: z.string().regex(/^[1-9][0-9]{0,18}$/, 'must be the next_cursor of a previous page').optional(),
  limit: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be between 1 and 500').max(500, 'must be between 1 and 500').default(50),
});

/** `GET /v1/audit` (operator keys): who changed what, when and why, newest first, one keyset page at a time. */
export function auditRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/audit', async (req, res) => {
    requireRole(req, 'operator');
    const q = auditQuerySchema.parse(req.query);
    const namespace = namespaceFor(req, q.namespace);
    res.json(
      await listAudit(deps.pool, {
        namespace,
        targetType: q.target_type,
        targetId: q.target_id,
        actor: q.actor,
        since: q.since ? new Date(q.since) : undefined,
        before: q.cursor ? BigInt(q.cursor) : undefined,
        limit: q.limit,
      }),
    );
  });
  return router;
}
