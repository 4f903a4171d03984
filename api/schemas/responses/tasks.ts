import { z } from 'zod';
import { TASK_STATUSES } from '../../../core/tasks/contracts.js';
import { instant, nullableInstant } from './common.js';

const scheduleSchema = z.union([z.object({ every: z.string() }), z.object({ cron: z.string() })]);
/** The last reported progress; the stored row holds `{}` until the first report, hence every field optional. */
const progressSchema = z.object({ note: z.string().nullable().optional(), percent: z.number().nullable().optional(), updated_at: nullableInstant.optional() });

/** `201` of `POST /v1/tasks`: the task and its running workflow. */
export const taskCreatedSchema = z
  .object({ id: z.uuid(), workflow_id: z.string(), status: z.enum(TASK_STATUSES) })
  .meta({ id: 'TaskCreated', example: { id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', workflow_id: 'task:7c9e6679-7425-40de-944b-e07fc1f90ae7', status: 'active' } });

/** One task of `GET /v1/tasks` (core/tasks/store.ts taskSummary). */
export const taskSummarySchema = z
  .object({
    id: z.uuid(),
    namespace: z.string(),
    intent: z.string(),
    schedule: scheduleSchema,
    status: z.enum(TASK_STATUSES),
    progress: progressSchema,
    error_budget: z.number().int(),
    error_budget_remaining: z.number().int(),
    current_burst: z.number().int(),
    next_burst_at: nullableInstant,
    webhook_url: z.string().nullable(),
    user_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    workflow_id: z.string(),
    created_at: instant,
    updated_at: instant,
    finished_at: nullableInstant,
  })
  .meta({ id: 'TaskSummary' });

export const taskListSchema = z.object({ tasks: z.array(taskSummarySchema) }).meta({ id: 'TaskList' });

/** `GET /v1/tasks/:id`: the workflow's live `state` (core/tasks/contracts.ts TaskView) plus the stored fields. */
export const taskDetailSchema = z
  .object({
    id: z.uuid(),
    namespace: z.string(),
    intent: z.string(),
    schedule: scheduleSchema,
    status: z.enum(TASK_STATUSES),
    progress: progressSchema,
    error_budget: z.number().int(),
    error_budget_remaining: z.number().int(),
    current_burst: z.number().int(),
    bursts: z.array(
      z.object({
        burst: z.number().int(),
        scheduled_at: instant,
        finished_at: instant,
        outcome: z.enum(['ok', 'failed']),
        http_status: z.number().int().nullable(),
        error: z.string().nullable(),
      }),
    ),
    next_burst_at: nullableInstant,
    webhook_url: z.string().nullable(),
    user_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    workflow_id: z.string(),
    created_at: instant,
  })
  .meta({ id: 'Task' });

/** `202` of the task signals (progress, budget, pause, resume, cancel). */
export const taskSignalAckSchema = z
  .object({ id: z.uuid(), workflow_id: z.string(), signal: z.string() })
  .meta({ id: 'TaskSignalAck', example: { id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', workflow_id: 'task:7c9e6679-7425-40de-944b-e07fc1f90ae7', signal: 'pause' } });
