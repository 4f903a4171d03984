import { WorkflowIdReusePolicy } from '@temporalio/common';
import { Router } from 'express';
import { z } from 'zod';
import type { Deps } from '../../core/deps.js';
import { appendTurn, type AppendedTurn } from '../../core/sessions/appendTurn.js';
import { SESSION_WORKFLOW_TYPE, sessionWorkflowId, turnSignal, type SessionWorkflowInput, type TurnSignal } from '../../core/sessions/contracts.js';
import { getSessionView } from '../../core/sessions/read.js';
import { TURN_ROLES } from '../../core/sessions/rows.js';
import { withDeadline } from '../../core/temporal/client.js';
import { namespaceFor, principalOf } from '../auth.js';
import { notFound } from '../errors.js';
import { namespaceSchema, scopeIdSchema } from '../schemas/common.js';
import { jsonValueSchema } from '../schemas/json.js';
import { MAX_CONTENT_BYTES } from './memories.js';

/** How long a turn's acknowledgement waits for its signal to reach Temporal. */
const SIGNAL_WAIT_MS = 1_000;

/** Longest per-session TTL: a year (the column is an INTEGER of seconds). */
const MAX_TTL_SECONDS = 365 * 24 * 3600;

export const taskParamsSchema = z.object({ task_id: scopeIdSchema });

export const turnBodySchema = z.strictObject({
  role: z.enum(TURN_ROLES, { error: `must be one of: ${TURN_ROLES.join(', ')}` }),
  content: z
    .string()
    .refine((s) => s.trim().length > 0, 'must not be empty')
    .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters')
    .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_CONTENT_BYTES, `must be at most ${MAX_CONTENT_BYTES} bytes`),
  tool_result: jsonValueSchema.optional(),
  namespace: namespaceSchema.optional(),
  user_id: scopeIdSchema.optional(),
  agent_id: scopeIdSchema.optional(),
  ttl_seconds: z.number().int('must be a whole number of seconds').min(1).max(MAX_TTL_SECONDS).optional(),
});

export const sessionQuerySchema = z.strictObject({ namespace: namespaceSchema.optional() });

/** Working memory: `POST /v1/sessions/:task_id/turns` and `GET /v1/sessions/:task_id`. */
export function sessionsRoutes(deps: Deps): Router {
  const router = Router();

  /**
   * Tells the session workflow about a committed turn, starting a run when none
   * is open (the same id is reused after an expired run completed). A refusal
   * is logged: the turn is already durable and the next turn signals again.
   */
  async function notifyWorkflow(namespace: string, taskId: string, turn: AppendedTurn): Promise<void> {
    const workflowId = sessionWorkflowId(namespace, taskId);
    const signal: TurnSignal = { sessionId: turn.sessionId, turnIndex: turn.turnIndex, ttlMs: turn.ttlMs };
    try {
      await withDeadline(deps.temporal, 5_000, () =>
        deps.temporal.client.workflow.signalWithStart(SESSION_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: deps.temporal.taskQueue,
          args: [{ namespace, taskId } satisfies SessionWorkflowInput],
          signal: turnSignal,
          signalArgs: [signal],
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        }),
      );
    } catch (err) {
      deps.logger.warn({ err, workflowId, sessionId: turn.sessionId, turnIndex: turn.turnIndex }, 'could not signal the session workflow');
    }
  }

  router.post('/sessions/:task_id/turns', async (req, res) => {
    const { task_id: taskId } = taskParamsSchema.parse(req.params);
    const body = turnBodySchema.parse(req.body);
    const namespace = namespaceFor(req, body.namespace);
    const turn = await appendTurn(
      deps,
      {
        namespace,
        taskId,
        role: body.role,
        content: body.content,
        toolResult: body.tool_result,
        userId: body.user_id,
        agentId: body.agent_id,
        ttlSeconds: body.ttl_seconds,
      },
      { actor: `key:${principalOf(req).keyId}`, requestId: String(req.id) },
    );
    // The turn is durable: wait for the signal only briefly, so a slow or unreachable Temporal
    // does not hold the agent up (the signal goes on in the background; lost ones are caught up at expiry).
    await Promise.race([notifyWorkflow(namespace, taskId, turn), new Promise((resolve) => setTimeout(resolve, SIGNAL_WAIT_MS).unref())]);
    res.status(202).json({ task_id: taskId, turn_index: turn.turnIndex, workflow_id: sessionWorkflowId(namespace, taskId) });
  });

  router.get('/sessions/:task_id', async (req, res) => {
    const { task_id: taskId } = taskParamsSchema.parse(req.params);
    const query = sessionQuerySchema.parse(req.query);
    const view = await getSessionView(deps, namespaceFor(req, query.namespace), taskId);
    if (!view) throw notFound('Session');
    res.json(view);
  });

  return router;
}
