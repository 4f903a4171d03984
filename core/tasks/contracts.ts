/**
 * The persistentTask workflow's public surface: its type name, workflow id,
 * input, signals and query. Names and shapes are stored in Temporal history
 * forever: never rename them, extend shapes only with optional fields.
 *
 * Workflow-safe (imported by workflow code, the API and the reviews area): no
 * Node imports, and zod/mini rather than full zod, because every module the
 * workflow bundle imports is evaluated for every workflow run, ingestEpisode's included.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import * as z from 'zod/mini';

export const PERSISTENT_TASK_WORKFLOW_TYPE = 'persistentTask';

export function persistentTaskWorkflowId(taskId: string): string {
  return `task:${taskId}`;
}

export const TASK_STATUSES = ['active', 'paused', 'cancelled', 'completed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** A burst's outcome as stored in `task_burst.outcome`. */
export type BurstOutcome = 'ok' | 'failed';

/** Memories written with a task id during one burst, at most (DESIGN §4 write rate limit). */
export const TASK_WRITES_PER_BURST = 50;

/** How many bursts `GET /v1/tasks/:id` (and the `state` query) lists, newest first. */
export const RECENT_BURSTS = 10;

/** When bursts run: a fixed interval (`30s`, `15m`, `1h`, `1d`) or a five-field UTC cron expression. */
export const taskScheduleSchema = z.union([z.object({ every: z.string() }), z.object({ cron: z.string() })]);
export type TaskSchedule = z.infer<typeof taskScheduleSchema>;

export const progressArgsSchema = z.object({
  note: z.string().check(z.minLength(1), z.maxLength(4000)),
  percent: z.optional(z.number().check(z.gte(0), z.lte(100))),
  done: z.optional(z.boolean()),
});
/** `progress` signal: a note from the agent, optionally a percentage; `done: true` completes the task. */
export type ProgressArgs = z.infer<typeof progressArgsSchema>;

export const MAX_ERROR_BUDGET = 1000;
export const setBudgetArgsSchema = z.object({ error_budget: z.int().check(z.gte(1), z.lte(MAX_ERROR_BUDGET)) });
/** `setBudget` signal: the new budget; the remaining budget is refilled to it. */
export type SetBudgetArgs = z.infer<typeof setBudgetArgsSchema>;

/** The task's progress as last reported (by a progress signal or a webhook answer). */
export interface TaskProgress {
  note: string | null;
  percent: number | null;
  updated_at: string | null;
}

/** One burst as the task remembers it (the last RECENT_BURSTS are kept). */
export interface BurstSummary {
  burst: number;
  scheduled_at: string;
  finished_at: string;
  outcome: BurstOutcome;
  http_status: number | null;
  error: string | null;
}

/** The `state` query's answer, which is also `GET /v1/tasks/:id`'s body. */
export interface TaskView {
  id: string;
  namespace: string;
  intent: string;
  schedule: TaskSchedule;
  status: TaskStatus;
  progress: TaskProgress;
  error_budget: number;
  error_budget_remaining: number;
  current_burst: number;
  bursts: BurstSummary[];
  next_burst_at: string | null;
}

export const pause = defineSignal('pause');
/** Resumes a paused task; a task paused by its spent budget gets the budget back. */
export const resume = defineSignal('resume');
export const cancel = defineSignal('cancel');
export const setBudget = defineSignal<[SetBudgetArgs]>('setBudget');
export const progress = defineSignal<[ProgressArgs]>('progress');
export const state = defineQuery<TaskView>('state');

const isoInstant = z.iso.datetime({ offset: true });
const burstSummarySchema = z.object({
  burst: z.int(),
  scheduled_at: isoInstant,
  finished_at: isoInstant,
  outcome: z.enum(['ok', 'failed']),
  http_status: z.nullable(z.int()),
  error: z.nullable(z.string()),
});

/** The live state carried across continue-as-new. */
export const carriedTaskStateSchema = z.object({
  status: z.enum(TASK_STATUSES),
  progress: z.object({ note: z.nullable(z.string()), percent: z.nullable(z.number()), updated_at: z.nullable(isoInstant) }),
  errorBudget: z.int(),
  errorBudgetRemaining: z.int(),
  currentBurst: z.int(),
  lastScheduledAt: z.nullable(isoInstant),
  nextBurstAt: z.nullable(isoInstant),
  bursts: z.array(burstSummarySchema),
});
export type CarriedTaskState = z.infer<typeof carriedTaskStateSchema>;

export const persistentTaskInputSchema = z.object({
  taskId: z.uuid(),
  namespace: z.string(),
  intent: z.string(),
  schedule: taskScheduleSchema,
  webhookUrl: z.nullable(z.string()),
  errorBudget: z.int().check(z.gte(1)),
  /** Bursts per run before continue-as-new (tests lower it). */
  burstsPerRun: z.optional(z.int().check(z.gte(1))),
  /** Set by continue-as-new. */
  carried: z.optional(carriedTaskStateSchema),
});
export type PersistentTaskInput = z.infer<typeof persistentTaskInputSchema>;

/** What one burst reported back to the workflow (the `runTaskBurst` activity's result). */
export interface BurstResult {
  outcome: BurstOutcome;
  httpStatus: number | null;
  error: string | null;
  /** The webhook's validated answer; null without a webhook or on failure. */
  answer: { progress?: { note?: string; percent?: number }; done?: boolean } | null;
  finishedAt: string;
}

/** The durable copy written to `persistent_task` whenever the live state changes. */
export interface TaskRecord {
  taskId: string;
  namespace: string;
  status: TaskStatus;
  progress: TaskProgress;
  errorBudget: number;
  errorBudgetRemaining: number;
  currentBurst: number;
  nextBurstAt: string | null;
}
