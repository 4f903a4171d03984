import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { writeAudit } from '../../core/audit/auditLog.js';
import type { Deps } from '../../core/deps.js';
import {
  MAX_ERROR_BUDGET,
  TASK_STATUSES,
  cancel,
  pause,
  persistentTaskWorkflowId,
  progress,
  resume,
  setBudget,
  state,
  type TaskView,
} from '../../core/tasks/contracts.js';
import { TaskNotStarted, createTask } from '../../core/tasks/create.js';
import { scheduleProblem } from '../../core/tasks/schedule.js';
import { findTask, listTasks, recentBursts, taskSummary, taskViewFromRow, type TaskRow } from '../../core/tasks/store.js';
import { withDeadline } from '../../core/temporal/client.js';
import { namespaceFor, principalOf, requireRole } from '../auth.js';
import { HttpError, notFound, temporalUnavailable } from '../errors.js';
import { namespaceSchema, scopeIdSchema, uuidSchema } from '../schemas/common.js';

/** `{every}` or `{cron}`, exactly one, each checked (an interval such as 15m; a five-field UTC cron expression). */
const scheduleSchema = z
  .strictObject({ every: z.string().trim().optional(), cron: z.string().trim().optional() })
  .superRefine((schedule, ctx) => {
    if ((schedule.every === undefined) === (schedule.cron === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of every (e.g. "15m") or cron (e.g. "0 9 * * 1-5")' });
      return;
    }
    const problem = scheduleProblem(schedule.every !== undefined ? { every: schedule.every } : { cron: schedule.cron! });
    if (problem) ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
  })
  .transform((s) => (s.every !== undefined ? { every: s.every } : { cron: s.cron! }));

const errorBudgetSchema = z.number().int().min(1).max(MAX_ERROR_BUDGET);

export const createSchema = z.strictObject({
  intent: z.string().trim().min(1).max(10_000),
  schedule: scheduleSchema,
  error_budget: errorBudgetSchema.default(3),
  webhook_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2_000).optional(),
  namespace: namespaceSchema.optional(),
  user_id: scopeIdSchema.optional(),
  agent_id: scopeIdSchema.optional(),
});

export const listQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  status: z.enum(TASK_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const progressSchema = z.strictObject({
  note: z.string().trim().min(1).max(4_000),
  percent: z.number().min(0).max(100).optional(),
  done: z.boolean().optional(),
});
export const budgetSchema = z.strictObject({ error_budget: errorBudgetSchema });
export const noBodySchema = z.strictObject({}).optional();

/** How long a request waits for the workflow (query, signal) before answering from Postgres or with 503. */
const TEMPORAL_DEADLINE_MS = 3_000;

/** `/v1/tasks`: persistent tasks, each run by a `persistentTask` workflow (`task:<id>`) that these routes start, signal and query. */
export function tasksRoutes(deps: Deps): Router {
  const router = Router();

  /** The task if the caller may see it; another namespace's task is a 404 (no leak). */
  async function visibleTask(req: Request): Promise<TaskRow> {
    const id = uuidSchema.safeParse(req.params.id);
    if (!id.success) throw notFound('Task');
    const task = await findTask(deps.pool, id.data);
    const principal = principalOf(req);
    if (!task || (principal.namespace !== null && principal.namespace !== task.namespace)) throw notFound('Task');
    return task;
  }

  /**
   * The live state from the workflow's `state` query; the durable copy when the
   * workflow cannot answer, or has finished (it saves its final state before it
   * closes, and a closed workflow's query would cost a replay).
   */
  async function currentView(task: TaskRow): Promise<{ view: TaskView; source: 'workflow' | 'database' }> {
    const fromDatabase = async () => ({ view: taskViewFromRow(task, await recentBursts(deps.pool, task.namespace, task.id)), source: 'database' as const });
    if (task.status === 'cancelled' || task.status === 'completed') return fromDatabase();
    try {
      const handle = deps.temporal.client.workflow.getHandle(task.workflow_id);
      return { view: await withDeadline(deps.temporal, TEMPORAL_DEADLINE_MS, () => handle.query(state)), source: 'workflow' };
    } catch (err) {
      deps.logger.debug({ err, taskId: task.id }, 'task query failed; answering from postgres');
      return fromDatabase();
    }
  }

  /** Signals the task's workflow and audits the request. */
  async function signalTask(req: Request, task: TaskRow, send: (handle: WorkflowHandle) => Promise<void>, name: string, args?: unknown) {
    if (task.status === 'cancelled' || task.status === 'completed') throw new HttpError('conflict', `Task is ${task.status}`);
    try {
      const handle = deps.temporal.client.workflow.getHandle(persistentTaskWorkflowId(task.id));
      await withDeadline(deps.temporal, TEMPORAL_DEADLINE_MS, () => send(handle));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new HttpError('conflict', 'Task workflow is not running');
      req.log.warn({ err, taskId: task.id }, 'could not signal task');
      throw temporalUnavailable('Temporal is unreachable: try again');
    }
    await writeAudit(deps.pool, { namespace: task.namespace, actor: `key:${principalOf(req).keyId}`, requestId: String(req.id), workflowId: task.workflow_id }, [
      { action: `task.${name}`, targetType: 'persistent_task', targetId: task.id, before: { status: task.status }, after: args ?? null },
    ]);
    return { id: task.id, workflow_id: task.workflow_id, signal: name };
  }

  router.post('/tasks', async (req, res) => {
    const body = createSchema.parse(req.body);
    const namespace = namespaceFor(req, body.namespace);
    try {
      const task = await createTask(
        deps,
        {
          id: randomUUID(),
          namespace,
          intent: body.intent,
          schedule: body.schedule,
          errorBudget: body.error_budget,
          webhookUrl: body.webhook_url ?? null,
          userId: body.user_id ?? null,
          agentId: body.agent_id ?? null,
        },
        deps.now(),
        { actor: `key:${principalOf(req).keyId}`, requestId: String(req.id) },
      );
      res.status(201).json({ id: task.id, workflow_id: task.workflow_id, status: task.status });
    } catch (err) {
      if (!(err instanceof TaskNotStarted)) throw err;
      req.log.warn({ err: err.cause }, 'could not start task workflow');
      throw temporalUnavailable(err.message);
    }
  });

  router.get('/tasks', async (req, res) => {
    const query = listQuerySchema.parse(req.query);
    const tasks = await listTasks(deps.pool, { namespace: namespaceFor(req, query.namespace), status: query.status, limit: query.limit });
    res.json({ tasks: tasks.map(taskSummary) });
  });

  router.get('/tasks/:id', async (req, res) => {
    const task = await visibleTask(req);
    const { view, source } = await currentView(task);
    res.set('Mnemo-Task-Source', source);
    res.json({ ...view, webhook_url: task.webhook_url, user_id: task.user_id, agent_id: task.agent_id, workflow_id: task.workflow_id, created_at: task.created_at.toISOString() });
  });

  router.post('/tasks/:id/progress', async (req, res) => {
    const body = progressSchema.parse(req.body);
    const task = await visibleTask(req);
    res.status(202).json(await signalTask(req, task, (h) => h.signal(progress, body), 'progress', body));
  });

  router.post('/tasks/:id/budget', async (req, res) => {
    requireRole(req, 'operator');
    const body = budgetSchema.parse(req.body);
    const task = await visibleTask(req);
    res.status(202).json(await signalTask(req, task, (h) => h.signal(setBudget, body), 'setBudget', body));
  });

  for (const [name, signal] of [
    ['pause', pause],
    ['resume', resume],
    ['cancel', cancel],
  ] as const) {
    router.post(`/tasks/:id/${name}`, async (req, res) => {
      noBodySchema.parse(req.body);
      const task = await visibleTask(req);
      res.status(202).json(await signalTask(req, task, (h) => h.signal(signal), name));
    });
  }

  return router;
}
