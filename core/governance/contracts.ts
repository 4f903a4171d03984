/**
 * The `eraseUser` workflow's public surface: type name, id, steps, and the
 * shapes that cross the workflow boundary. Workflow-safe (no Node imports, no
 * I/O): imported by the workflow, the activities and the API. Everything here
 * lives in Temporal history forever: extend only with optional fields. Only
 * ids and counts cross it, never personal content.
 */
import * as z from 'zod/mini';
import { batchHeartbeatTimeoutSeconds } from '../temporal/batchHeartbeat.js';

/** The workflow type (stored in history: never rename). */
export const ERASE_USER_WORKFLOW_TYPE = 'eraseUser';

/** One erasure per user and namespace: a second request finds the same workflow. */
export function eraseWorkflowId(namespace: string, userId: string): string {
  return `erase:${namespace}:${userId}`;
}

/**
 * The steps, in order (names are stored in history and in `erasure.step`):
 * stop the user's extractions, tasks and sessions first so nothing new is
 * written, then the review items, facts and entities (while the episodes that
 * tell whose they are still exist), the episodes, a sweep of facts and
 * entities left without provenance, and the audit rows about the user.
 */
export const ERASURE_STEPS = ['halt', 'tasks', 'sessions', 'reviews', 'facts', 'entities', 'episodes', 'facts_sweep', 'entities_sweep', 'audit'] as const;
export type ErasureStep = (typeof ERASURE_STEPS)[number];

/** Kinds of rows counted in an erasure's report. */
export const ERASURE_KINDS = [
  'extractions_stopped',
  'tasks',
  'sessions',
  'review_items',
  'facts',
  'facts_detached',
  'entities',
  'entities_detached',
  'episodes',
  'audit_rows_deleted',
  'audit_rows_scrubbed',
] as const;
export type ErasureKind = (typeof ERASURE_KINDS)[number];
export type ErasureCounts = Partial<Record<ErasureKind, number>>;

export const DEFAULT_ERASURE_BATCH_SIZE = 500;
/** Batches one workflow run executes before it continues as new (keeps histories short). */
export const DEFAULT_ERASURE_BATCHES_PER_RUN = 100;

const positiveInt = z.number().check(z.int(), z.positive());

/** Where a run is, carried across continue-as-new. */
export const erasureProgressSchema = z.object({
  step: z.enum(ERASURE_STEPS),
  batches: z.number().check(z.int(), z.nonnegative()),
});
export type ErasureProgress = z.infer<typeof erasureProgressSchema>;

export const eraseUserInputSchema = z.object({
  namespace: z.string().check(z.minLength(1)),
  userId: z.string().check(z.minLength(1)),
  /** Audit actor of the request (`key:<id>`) and its request id: the final audit row names them. */
  requestedBy: z.optional(z.string()),
  requestId: z.optional(z.string()),
  /** Rows per batch (tests shrink it to make an erasure take many activities). */
  batchSize: z.optional(positiveInt),
  batchesPerRun: z.optional(positiveInt),
  heartbeatTimeoutSeconds: batchHeartbeatTimeoutSeconds,
  /** Set by continue-as-new only. */
  progress: z.optional(erasureProgressSchema),
});
export type EraseUserInput = z.input<typeof eraseUserInputSchema>;

export interface ErasureTarget {
  namespace: string;
  userId: string;
}

export interface EraseBatchInput extends ErasureTarget {
  step: ErasureStep;
  limit: number;
}

export interface EraseBatchResult {
  /** True when the step has nothing left. */
  done: boolean;
  /** Rows this batch removed or detached, by kind. */
  counts: ErasureCounts;
}

export interface FinishErasureInput extends ErasureTarget {
  requestedBy?: string;
  requestId?: string;
}

export interface ErasureSummary {
  status: 'running' | 'completed' | 'failed';
  counts: ErasureCounts;
}
