import { randomUUID } from 'node:crypto';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { writeAudit } from '../../core/audit/auditLog.js';
import type { Deps } from '../../core/deps.js';
import { DREAM_WORKFLOW_TYPE, dreamWorkflowId, type DreamInput } from '../../core/dream/contracts.js';
import { createRunRow, failRun, listRuns, loadRun, runView } from '../../core/dream/runs.js';
import { withDeadline } from '../../core/temporal/client.js';
import { namespaceFor, principalOf, requireRole } from '../auth.js';
import { notFound, temporalUnavailable } from '../errors.js';
import { namespaceSchema, uuidSchema } from '../schemas/common.js';

export const runBodySchema = z.strictObject({ namespace: namespaceSchema.optional() }).optional();
export const listQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  limit: z.coerce.number({ error: 'must be a number' }).int().min(1).max(100).default(20),
});
export const idParams = z.object({ id: uuidSchema });

/**
 * The namespace a dream request is about: the one named (if the key may use
 * it); else every namespace for an admin key, the key's own for a namespaced one.
 */
function dreamScope(req: Request, requested: string | undefined): string | null {
  if (requested !== undefined) return namespaceFor(req, requested);
  return principalOf(req).namespace;
}

/** Operators: `POST /v1/dream/run` (on demand), `GET /v1/dream/runs`, `GET /v1/dream/runs/:id` (the stored reports). */
export function dreamRoutes(deps: Deps): Router {
  const router = Router();

  router.post('/dream/run', async (req, res) => {
    requireRole(req, 'operator');
    const body = runBodySchema.parse(req.body);
    const namespace = dreamScope(req, body?.namespace);
    if (namespace !== null) {
      const { rowCount } = await deps.pool.query('SELECT 1 FROM namespace WHERE id = $1', [namespace]);
      if (!rowCount) throw notFound('Namespace');
    }
    const principal = principalOf(req);
    const runId = randomUUID();
    const workflowId = dreamWorkflowId(runId);
    // The row first: the run is readable as soon as it is acknowledged.
    await createRunRow(deps.pool, { id: runId, namespace, workflowId, requestedBy: principal.keyId });
    await writeAudit(deps.pool, { namespace: namespace ?? '*', actor: `key:${principal.keyId}`, requestId: String(req.id), workflowId }, [
      { action: 'dream.requested', targetType: 'dream_run', targetId: runId, after: { namespace } },
    ]);
    try {
      await withDeadline(deps.temporal, 5_000, () =>
        deps.temporal.client.workflow.start(DREAM_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: deps.temporal.taskQueue,
          args: [{ runId, namespace, requestedBy: principal.keyId } satisfies DreamInput],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        }),
      );
    } catch (err) {
      req.log.warn({ err, runId }, 'could not start the dream workflow');
      await failRun(deps.pool, runId, 'Temporal was unavailable: the run never started');
      throw temporalUnavailable('Temporal is unavailable: the dream run could not start; try again');
    }
    res.status(202).json({ run_id: runId, workflow_id: workflowId });
  });

  router.get('/dream/runs', async (req, res) => {
    requireRole(req, 'operator');
    const q = listQuerySchema.parse(req.query);
    res.json({ runs: await listRuns(deps.pool, dreamScope(req, q.namespace), q.limit) });
  });

  router.get('/dream/runs/:id', async (req, res) => {
    requireRole(req, 'operator');
    const parsed = idParams.safeParse(req.params);
    if (!parsed.success) throw notFound('Dream run');
    const row = await loadRun(deps.pool, parsed.data.id);
    const own = principalOf(req).namespace;
    // Another namespace's run (or an every-namespace run, for a namespaced key) is indistinguishable from a missing one.
    if (!row || (own !== null && row.namespace !== own)) throw notFound('Dream run');
    res.json(runView(row));
  });

  return router;
}
