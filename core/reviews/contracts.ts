/**
 * The `review` workflow's public surface: its input, the three decision
 * signals and the state query, defined once here for the workflow, the API and
 * the CLI docs. Workflow-safe (no Node, no I/O; zod/mini like the other
 * workflow inputs). Names and argument shapes live in Temporal history
 * forever: extend only with optional fields.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import * as z from 'zod/mini';

export const REVIEW_KINDS = ['conflict', 'merge', 'rejected_write', 'budget', 'task_budget'] as const;
export type ReviewKind = (typeof REVIEW_KINDS)[number];

export const REVIEW_DECISIONS = ['approve', 'reject', 'resolve'] as const;
export type ReviewDecisionName = (typeof REVIEW_DECISIONS)[number];

/** Kinds that only inform an operator: a decision acknowledges them, changes nothing, and they never escalate. */
export const INFORMATIONAL_KINDS: readonly ReviewKind[] = ['rejected_write', 'budget'];

export const reviewWorkflowInputSchema = z.object({ reviewId: z.uuid() });

const note = z.optional(z.string().check(z.maxLength(2000)));
/** Who decided (the API passes `key:<key id>`; a CLI signal may name a person); defaults to `temporal:signal`. */
const by = z.optional(z.string().check(z.minLength(1), z.maxLength(200)));
const requestId = z.optional(z.string().check(z.maxLength(200)));

/** `approve` and `reject`: no argument needed (`temporal workflow signal --name approve`). */
export const plainDecisionArgsSchema = z.optional(z.object({ by, note, request_id: requestId }));
/** `resolve`: which of a conflict's facts stays true. */
export const resolveDecisionArgsSchema = z.object({ keep_fact_id: z.uuid(), by, note, request_id: requestId });

export type PlainDecisionArgs = z.infer<typeof plainDecisionArgsSchema>;
export type ResolveDecisionArgs = z.infer<typeof resolveDecisionArgsSchema>;

// Handlers take `unknown`: a CLI signal may carry anything, and a bad one must be recorded, not crash the workflow.
export const approveSignal = defineSignal<[PlainDecisionArgs?]>('approve');
export const rejectSignal = defineSignal<[PlainDecisionArgs?]>('reject');
export const resolveSignal = defineSignal<[ResolveDecisionArgs]>('resolve');

export const DECISION_SIGNALS = { approve: approveSignal, reject: rejectSignal, resolve: resolveSignal } as const;

/** A decision the workflow accepted. */
export interface AcceptedDecision {
  decision: ReviewDecisionName;
  /** The fact a conflict keeps (resolve, or implied by approve/reject of a conflict); null otherwise. */
  keepFactId: string | null;
  by: string;
  note: string | null;
  requestId: string | null;
}

export interface IgnoredSignal {
  signal: string;
  reason: string;
}

export interface ReviewWorkflowState {
  reviewId: string;
  kind: ReviewKind;
  decision: AcceptedDecision | null;
  escalated: boolean;
  /** The most recent signals that were not taken as a decision (invalid, or after the decision). */
  ignored: IgnoredSignal[];
  ignoredCount: number;
}

/** The workflow's live state; null while it is still loading its item. */
export const reviewStateQuery = defineQuery<ReviewWorkflowState | null>('state');

/** What the workflow loads about its item before it waits (the activity's answer, stored in history). */
export interface ReviewSubject {
  reviewId: string;
  namespace: string;
  kind: ReviewKind;
  status: string;
  factIds: string[];
  createdAt: string;
  escalatedAt: string | null;
  /** REVIEW_ESCALATE_AFTER in ms; null: this item never escalates. */
  escalateAfterMs: number | null;
}

export interface ReviewOutcome {
  reviewId: string;
  /** `decided`: applied now; `already_decided`: someone else did it first; `missing`: no such item. */
  outcome: 'decided' | 'already_decided' | 'missing';
  decision: ReviewDecisionName | null;
  applied: boolean;
}
