import { Router } from 'express';
import { z } from 'zod';
import { hasRole } from '../../core/auth/apiKeys.js';
import type { Deps } from '../../core/deps.js';
import { PREDICATE_FAMILIES } from '../../core/domain/types.js';
import { listFacts } from '../../core/facts/query.js';
import { explicitFactSchema, explicitFactText } from '../../core/ingest/explicitFact.js';
import type { MemoryWriter } from '../../core/memories/write.js';
import { namespaceFor, principalOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { isoInstantSchema, namespaceSchema, queryBoolean, scopeIdSchema } from '../schemas/common.js';

export const factsQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  user_id: scopeIdSchema.optional(),
  subject: z.string().trim().min(1).max(200).optional(),
  predicate: z.string().trim().regex(/^[a-z][a-z0-9_]*$/, 'snake_case predicate').optional(),
  family: z.enum(PREDICATE_FAMILIES).optional(),
  as_of: isoInstantSchema.optional(),
  include_invalidated: queryBoolean.optional(),
  include_forgotten: queryBoolean.optional(),
  /** Facts the dream marked stale (decayed below DECAY_FLOOR) too. */
  include_stale: queryBoolean.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const factBodySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  user_id: scopeIdSchema.optional(),
  agent_id: scopeIdSchema.optional(),
  run_id: scopeIdSchema.optional(),
  source: z.string().trim().min(1).max(500).optional(),
  fact: explicitFactSchema,
});

export function factRoutes(deps: Deps, writer: MemoryWriter): Router {
  const router = Router();

  router.get('/facts', async (req, res) => {
    const q = factsQuerySchema.parse(req.query);
    if (q.include_forgotten && !hasRole(principalOf(req), 'operator')) {
      throw new HttpError('forbidden', 'include_forgotten requires an operator key');
    }
    const facts = await listFacts(deps, {
      namespace: namespaceFor(req, q.namespace),
      userId: q.user_id,
      subject: q.subject,
      predicate: q.predicate,
      family: q.family,
      asOf: q.as_of ? new Date(q.as_of) : undefined,
      includeInvalidated: q.include_invalidated,
      includeForgotten: q.include_forgotten,
      includeStale: q.include_stale,
      limit: q.limit,
    });
    res.json({ facts });
  });

  /** An explicit triple: recorded as an episode and sent through the same stages and gates as extracted facts. */
  router.post('/facts', async (req, res) => {
    const body = factBodySchema.parse(req.body);
    const [accepted] = await writer.accept([
      {
        content: explicitFactText(body.fact),
        namespace: namespaceFor(req, body.namespace),
        userId: body.user_id,
        agentId: body.agent_id,
        runId: body.run_id,
        source: body.source ?? 'api:facts',
        metadata: { explicit_fact: body.fact, ...(body.fact.sensitivity ? { sensitivity: body.fact.sensitivity } : {}) },
        tValidOverride: body.fact.valid_from,
      },
    ]);
    res.status(202).json({ ...accepted, episode_id: accepted.id });
  });

  return router;
}
