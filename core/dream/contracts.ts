/**
 * The `dream` workflow's public surface: type name, ids, schedule id, and the
 * shapes that cross the workflow boundary (workflow input, activity inputs and
 * outputs). Workflow-safe (no Node imports, no I/O): imported by the
 * workflow, the activities and the API. Everything here lives in Temporal
 * history forever: extend only with optional fields. zod/mini, like the other
 * workflow inputs (workflow code is re-evaluated for every run).
 */
import * as z from 'zod/mini';
import { batchHeartbeatTimeoutSeconds } from '../temporal/batchHeartbeat.js';

/** The workflow type (stored in history: never rename). */
export const DREAM_WORKFLOW_TYPE = 'dream';
/** The nightly schedule (`temporal schedule trigger --schedule-id dream`). */
export const DREAM_SCHEDULE_ID = 'dream';

/** On-demand runs; scheduled runs keep the schedule's workflow ids (`dream-<time>`). */
export function dreamWorkflowId(runId: string): string {
  return `dream:${runId}`;
}

/** The passes, in the order a run takes them (names are stored in reports and history). */
export const DREAM_PASSES = ['decay', 'session_expiry', 'duplicates', 'reembed'] as const;
export type DreamPass = (typeof DREAM_PASSES)[number];

/** Where a pass is: the namespace it works in and the last row id it finished (keyset order). */
export const dreamCursorSchema = z.object({
  namespace: z.string(),
  after: z.nullable(z.string()),
});
export type DreamCursor = z.infer<typeof dreamCursorSchema>;

const count = z.number().check(z.int(), z.nonnegative());
const seconds = z.number().check(z.nonnegative());

/** Counts and time of each pass, summed over its batches and namespaces. */
export const dreamReportSchema = z.object({
  passes: z.object({
    decay: z.object({ facts_updated: count, stale_marked: count, seconds }),
    session_expiry: z.object({ sessions_checked: count, sessions_expired: count, seconds }),
    duplicates: z.object({ entities_checked: count, pairs_proposed: count, seconds }),
    reembed: z.object({ episodes_reembedded: count, facts_reembedded: count, seconds }),
  }),
  totals: z.object({ batches: count, seconds }),
});
export type DreamReport = z.infer<typeof dreamReportSchema>;
export type PassCounts<P extends DreamPass> = Omit<DreamReport['passes'][P], 'seconds'>;

/** Sizes of one batch per pass (tests shrink them to exercise batching and continue-as-new). */
export const dreamBatchSizesSchema = z.object({
  decay: z.optional(z.number().check(z.int(), z.positive())),
  session_expiry: z.optional(z.number().check(z.int(), z.positive())),
  duplicates: z.optional(z.number().check(z.int(), z.positive())),
  reembed: z.optional(z.number().check(z.int(), z.positive())),
});
export type DreamBatchSizes = z.infer<typeof dreamBatchSizesSchema>;

export const DEFAULT_BATCH_SIZES: Required<DreamBatchSizes> = { decay: 100_000, session_expiry: 100, duplicates: 2_000, reembed: 256 };
/** Batches one workflow run executes before it continues as new (keeps histories short). */
export const DEFAULT_BATCHES_PER_RUN = 200;

/** A run's position, carried from one workflow run to the next by continue-as-new. */
export const dreamProgressSchema = z.object({
  runId: z.string(),
  pass: z.enum(DREAM_PASSES),
  cursor: z.nullable(dreamCursorSchema),
  /** Batches finished so far in this dream run (the idempotency key of the next one). */
  batch: count,
  report: dreamReportSchema,
});
export type DreamProgress = z.infer<typeof dreamProgressSchema>;

export const dreamInputSchema = z.object({
  /** Set by the API; a scheduled run derives one from its workflow id. */
  runId: z.optional(z.string()),
  /** One namespace; absent or null: every namespace. */
  namespace: z.optional(z.nullable(z.string())),
  requestedBy: z.optional(z.string()),
  /** The instant decay is computed at (ISO); default: when the run started. Makes a run reproducible. */
  now: z.optional(z.string()),
  batchSizes: z.optional(dreamBatchSizesSchema),
  batchesPerRun: z.optional(z.number().check(z.int(), z.positive())),
  heartbeatTimeoutSeconds: batchHeartbeatTimeoutSeconds,
  /** Set by continue-as-new only. */
  progress: z.optional(dreamProgressSchema),
});
export type DreamInput = z.input<typeof dreamInputSchema>;

export interface BeginDreamRunInput {
  workflowId: string;
  runId?: string;
  namespace: string | null;
  requestedBy?: string;
}

export interface BeginDreamRunResult {
  runId: string;
  /** The report stored so far (empty for a new run). */
  report: DreamReport;
}

/** One batch of one pass. */
export interface DreamBatchInput {
  runId: string;
  /** The run's namespace (null: every namespace). */
  scope: string | null;
  /** Where to go on; null: the pass's first batch. */
  cursor: DreamCursor | null;
  /** 1-based number of this batch within the dream run: a retried batch with the same number is applied once. */
  batch: number;
  /** The run's instant (ISO). */
  now: string;
  limit: number;
}

export interface DreamBatchResult {
  /** Where the next batch starts; null when the pass is done. */
  next: DreamCursor | null;
  /** The run's report with this batch added. */
  report: DreamReport;
}
