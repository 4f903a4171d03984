import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { Router } from 'express';
import { z } from 'zod';
import { hasRole } from '../../core/auth/apiKeys.js';
import type { Deps } from '../../core/deps.js';
import { ERASE_USER_WORKFLOW_TYPE, eraseWorkflowId, type EraseUserInput } from '../../core/governance/contracts.js';
import { beginErasure, failErasure, loadErasure, userHasData } from '../../core/governance/erasureRecord.js';
import { streamUserExport } from '../../core/governance/export.js';
import { JsonObjectStream } from '../../core/governance/jsonStream.js';
import { userProfile } from '../../core/retrieval/profile.js';
import { withReadClient } from '../../core/retrieval/sql.js';
import { withDeadline } from '../../core/temporal/client.js';
import { namespaceFor, principalOf, requireRole } from '../auth.js';
import { notFound, temporalUnavailable } from '../errors.js';
import { isoInstantSchema, namespaceSchema, queryBoolean, scopeIdSchema } from '../schemas/common.js';
import { readScopeOf } from './search.js';

export const profileQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  as_of: isoInstantSchema.optional(),
  include_forgotten: queryBoolean.optional(),
});

export const exportQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  include_forgotten: queryBoolean.optional(),
});

export const eraseQuerySchema = z.strictObject({ namespace: namespaceSchema.optional() });

export const userParams = z.object({ user_id: scopeIdSchema });

/**
 * `GET /v1/users/:user_id/profile` (the user's active facts by family),
 * `GET /v1/users/:user_id/export` (everything about the user, streamed) and
 * `DELETE /v1/users/:user_id` (operator keys: starts the user's erasure).
 */
export function userRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/users/:user_id/profile', async (req, res) => {
    const { user_id } = userParams.parse(req.params);
    const q = profileQuerySchema.parse(req.query);
    const scope = { ...readScopeOf(req, deps, { ...q, user_id }), userId: user_id };
    res.json(await withReadClient(deps.readPool, (db) => userProfile(db, scope)));
  });

  router.get('/users/:user_id/export', async (req, res) => {
    const { user_id } = userParams.parse(req.params);
    const q = exportQuerySchema.parse(req.query);
    const namespace = namespaceFor(req, q.namespace);
    if (q.include_forgotten) requireRole(req, 'operator');
    const includeConfidential = hasRole(principalOf(req), 'operator');
    res.status(200);
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-disposition', `attachment; filename="mnemo-export-${namespace}.json"`);
    // One connection and one snapshot for the whole document (pages read later see what the first saw);
    // after the first byte an error can only cut the stream short.
    const client = await deps.readPool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await streamUserExport(client, new JsonObjectStream(res), {
        namespace,
        userId: user_id,
        includeConfidential,
        includeForgotten: q.include_forgotten === true,
        now: deps.now(),
      });
      await client.query('COMMIT');
      res.end();
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      req.log.error({ err }, 'export failed mid-stream');
      res.destroy(err instanceof Error ? err : undefined);
    } finally {
      client.release();
    }
  });

  router.delete('/users/:user_id', async (req, res) => {
    requireRole(req, 'operator');
    const { user_id } = userParams.parse(req.params);
    const q = eraseQuerySchema.parse(req.query);
    const namespace = namespaceFor(req, q.namespace);
    const { rowCount } = await deps.pool.query('SELECT 1 FROM namespace WHERE id = $1', [namespace]);
    if (!rowCount) throw notFound('Namespace');
    const target = { namespace, userId: user_id };
    const workflowId = eraseWorkflowId(namespace, user_id);
    const principal = principalOf(req);
    const existing = await loadErasure(deps.pool, workflowId);
    // Erased already and nothing new written since: nothing to do, the same answer.
    if (existing?.status === 'completed' && !(await userHasData(deps.pool, target))) {
      res.status(202).json({ id: workflowId, workflow_id: workflowId, status: 'completed' });
      return;
    }
    await beginErasure(deps.pool, target, `key:${principal.keyId}`);
    try {
      await withDeadline(deps.temporal, 5_000, () =>
        deps.temporal.client.workflow.start(ERASE_USER_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: deps.temporal.taskQueue,
          args: [{ namespace, userId: user_id, requestedBy: `key:${principal.keyId}`, requestId: String(req.id) } satisfies EraseUserInput],
          // A finished erasure may run again (new writes since); a running one is joined, not duplicated.
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        }),
      );
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
        req.log.warn({ err }, 'could not start the erasure workflow');
        await failErasure(deps.pool, target, 'Temporal was unavailable: the erasure never started');
        throw temporalUnavailable('Temporal is unavailable: the erasure could not start; try again');
      }
    }
    res.status(202).json({ id: workflowId, workflow_id: workflowId, status: 'running' });
  });
  return router;
}
