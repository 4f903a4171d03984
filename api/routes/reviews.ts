import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { writeAudit } from '../../core/audit/auditLog.js';
import type { Deps } from '../../core/deps.js';
import { DECISION_SIGNALS, REVIEW_KINDS, type ReviewDecisionName } from '../../core/reviews/contracts.js';
import { mergeObstacle, mergePair } from '../../core/reviews/merge.js';
import { decodeReviewCursor, getReview, listReviews, REVIEW_STATUS_FILTERS, type ReviewView } from '../../core/reviews/read.js';
import { decisionProblem } from '../../core/reviews/reviewState.js';
import { REVIEW_WORKFLOW_TYPE, reviewWorkflowId, type ReviewWorkflowInput } from '../../core/reviews/start.js';
import { withDeadline } from '../../core/temporal/client.js';
import { principalOf, namespaceFor, requireRole } from '../auth.js';
import { HttpError, notFound, temporalUnavailable } from '../errors.js';
import { namespaceSchema, uuidSchema } from '../schemas/common.js';

export const listQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  status: z.enum(REVIEW_STATUS_FILTERS).optional(),
  kind: z.enum(REVIEW_KINDS).optional(),
  limit: z.coerce.number({ error: 'must be a number' }).int().min(1).max(100).default(20),
  cursor: z.string().max(500).optional(),
});

const note = z.string().trim().min(1).max(2000).optional();
export const plainBodySchema = z.strictObject({ note }).optional();
export const resolveBodySchema = z.strictObject({ keep_fact_id: uuidSchema, note });

/**
 * Operator reviews: list and read items, and decide them. A decision is a
 * signal to the item's `review:<id>` workflow (started first when missing);
 * the workflow applies it in an activity, so the answer is 202 and the item
 * shows `status: decided` once applied.
 */
export function reviewsRoutes(deps: Deps): Router {
  const router = Router();

  /** The item, if the key may see it: another namespace's item is a 404 (no leak). */
  async function visibleReview(req: Request): Promise<ReviewView> {
    requireRole(req, 'operator');
    const id = uuidSchema.safeParse(req.params.id);
    if (!id.success) throw notFound('Review');
    const principal = principalOf(req);
    const item = await getReview(deps.pool, id.data, principal.namespace);
    if (!item) throw notFound('Review');
    return item;
  }

  router.get('/reviews', async (req, res) => {
    requireRole(req, 'operator');
    const q = listQuerySchema.parse(req.query);
    const after = q.cursor ? decodeReviewCursor(q.cursor) : null;
    if (q.cursor && !after) throw new HttpError('invalid_input', 'Invalid input', [{ field: 'cursor', message: 'unknown cursor' }]);
    res.json(await listReviews(deps.pool, { namespace: namespaceFor(req, q.namespace), status: q.status, kind: q.kind, limit: q.limit, after }));
  });

  router.get('/reviews/:id', async (req, res) => {
    res.json(await visibleReview(req));
  });

  async function decide(req: Request, decision: ReviewDecisionName, keepFactId: string | null, note: string | undefined) {
    const item = await visibleReview(req);
    if (item.status !== 'open') {
      throw new HttpError('conflict', `Review is already decided (${item.decision ?? item.status})`, { status: item.status, decision: item.decision });
    }
    const problem = decisionProblem({ kind: item.kind, factIds: item.fact_ids }, decision, keepFactId);
    if (problem?.status === 'invalid') throw new HttpError('invalid_input', 'Invalid input', [{ field: problem.field, message: problem.message }]);
    if (problem) throw new HttpError('conflict', problem.message, { field: problem.field });
    if (item.kind === 'merge' && decision === 'approve') {
      const pair = mergePair(item);
      const obstacle = pair ? await mergeObstacle(deps.pool, item.namespace, pair.survivorId, pair.loserId) : 'the proposal does not name two entities';
      if (obstacle) throw new HttpError('conflict', `This merge can no longer be applied: ${obstacle}`);
    }
    const principal = principalOf(req);
    const by = `key:${principal.keyId}`;
    const workflowId = reviewWorkflowId(item.id);
    const signalArgs = { by, request_id: String(req.id), ...(note ? { note } : {}), ...(keepFactId ? { keep_fact_id: keepFactId } : {}) };
    try {
      await withDeadline(deps.temporal, 10_000, () =>
        deps.temporal.client.workflow.signalWithStart(REVIEW_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: deps.temporal.taskQueue,
          args: [{ reviewId: item.id } satisfies ReviewWorkflowInput],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          signal: DECISION_SIGNALS[decision].name,
          signalArgs: [signalArgs],
        }),
      );
    } catch (err) {
      // The workflow already closed: it applied a decision (the row is about to say so).
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new HttpError('conflict', 'Review is already decided');
      req.log.warn({ err, workflowId }, 'could not signal review workflow');
      throw temporalUnavailable('Temporal is unavailable: the decision was not recorded; retry later');
    }
    await deps.pool.query('UPDATE review_item SET workflow_id = $2 WHERE id = $1 AND workflow_id IS NULL', [item.id, workflowId]);
    await writeAudit(deps.pool, { namespace: item.namespace, actor: by, requestId: String(req.id), workflowId }, [
      { action: 'review.decision_requested', targetType: 'review_item', targetId: item.id, after: { decision, ...(keepFactId ? { keep_fact_id: keepFactId } : {}) } },
    ]);
    return { id: item.id, workflow_id: workflowId, decision, status: item.status };
  }

  router.post('/reviews/:id/approve', async (req, res) => {
    requireRole(req, 'operator');
    const body = plainBodySchema.parse(req.body ?? undefined);
    res.status(202).json(await decide(req, 'approve', null, body?.note));
  });

  router.post('/reviews/:id/reject', async (req, res) => {
    requireRole(req, 'operator');
    const body = plainBodySchema.parse(req.body ?? undefined);
    res.status(202).json(await decide(req, 'reject', null, body?.note));
  });

  router.post('/reviews/:id/resolve', async (req, res) => {
    requireRole(req, 'operator');
    const body = resolveBodySchema.parse(req.body ?? {});
    res.status(202).json(await decide(req, 'resolve', body.keep_fact_id, body.note));
  });

  return router;
}
