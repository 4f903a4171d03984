import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../../core/deps.js';
import { correctFact, forgetFact, InvalidCorrection, restoreFact } from '../../core/facts/corrections.js';
import { EntityRestoreConflict, forgetEntity, restoreEntity } from '../../core/entities/forget.js';
import { forgetEpisode, restoreEpisode, type Requester } from '../../core/memories/forget.js';
import { principalOf, requireRole } from '../auth.js';
import { HttpError, notFound } from '../errors.js';
import { isoInstantSchema, uuidSchema } from '../schemas/common.js';

const unit = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');

export const factCorrectionSchema = z
  .strictObject({
    fact_text: z.string().trim().min(1, 'must not be empty').max(2000),
    value: z.string().trim().min(1, 'must not be empty').max(2000).nullable(),
    confidence: unit,
    importance: unit,
    valid_from: isoInstantSchema.nullable(),
    invalid_at: isoInstantSchema.nullable(),
    reason: z.string().trim().min(1).max(1000),
  })
  .partial()
  .refine((b) => Object.keys(b).some((k) => k !== 'reason'), { message: 'name at least one field to correct', path: [] });

/** The requester of a mutation: audit actor, request id, and the namespace its key is bound to. */
function requester(req: Request): Requester {
  const principal = principalOf(req);
  return { actor: `key:${principal.keyId}`, requestId: String(req.id), namespace: principal.namespace };
}

/** Path ids that are not UUIDs cannot name a row: 404 like any other unknown id. */
function idParam(req: Request, what: string): string {
  const id = uuidSchema.safeParse(req.params.id);
  if (!id.success) throw notFound(what);
  return id.data;
}

/**
 * Soft-delete and restore of memories, facts and entities (restore: operator
 * keys), audited corrections and deletion of facts. Rows of a namespace the key may not use are 404, never 403 (no leak).
 */
export function correctionRoutes(deps: Deps): Router {
  const router = Router();

  const forget: RequestHandler = async (req, res) => {
    const result = await forgetEpisode(deps, idParam(req, 'Memory'), requester(req));
    if (!result) throw notFound('Memory');
    res.json(result);
  };
  router.post('/memories/:id/forget', forget);
  router.delete('/memories/:id', forget);

  router.post('/memories/:id/restore', async (req, res) => {
    requireRole(req, 'operator');
    const result = await restoreEpisode(deps, idParam(req, 'Memory'), requester(req));
    if (!result) throw notFound('Memory');
    res.json(result);
  });

  router.patch('/facts/:id', async (req, res) => {
    const id = idParam(req, 'Fact');
    const raw: unknown = req.body;
    if (raw && typeof raw === 'object' && 'sensitivity' in raw) {
      // Well-formed but not allowed for any fact: the classification made at creation stands.
      throw new HttpError('conflict', 'Sensitivity is immutable after creation', [{ field: 'sensitivity', message: 'sensitivity is immutable after creation' }]);
    }
    const body = factCorrectionSchema.parse(raw);
    try {
      const fact = await correctFact(deps, id, body, requester(req));
      if (!fact) throw notFound('Fact');
      res.json(fact);
    } catch (err) {
      if (err instanceof InvalidCorrection) throw new HttpError('invalid_input', 'Invalid input', [{ field: err.field, message: err.message }]);
      throw err;
    }
  });

  const forgetOneFact: RequestHandler = async (req, res) => {
    const result = await forgetFact(deps, idParam(req, 'Fact'), requester(req));
    if (!result) throw notFound('Fact');
    res.json(result);
  };
  router.delete('/facts/:id', forgetOneFact);
  router.post('/facts/:id/forget', forgetOneFact);

  router.post('/facts/:id/restore', async (req, res) => {
    requireRole(req, 'operator');
    const result = await restoreFact(deps, idParam(req, 'Fact'), requester(req));
    if (!result) throw notFound('Fact');
    res.json(result);
  });

  router.post('/entities/:id/forget', async (req, res) => {
    const result = await forgetEntity(deps, idParam(req, 'Entity'), requester(req));
    if (!result) throw notFound('Entity');
    res.json(result);
  });

  router.post('/entities/:id/restore', async (req, res) => {
    requireRole(req, 'operator');
    try {
      const result = await restoreEntity(deps, idParam(req, 'Entity'), requester(req));
      if (!result) throw notFound('Entity');
      res.json(result);
    } catch (err) {
      if (err instanceof EntityRestoreConflict) throw new HttpError('conflict', err.message, { namesake_id: err.namesakeId });
      throw err;
    }
  });

  return router;
}
