/**
 * The `session` workflow's public surface: its type name, id, signal, query and
 * the shapes that cross the workflow boundary. Workflow-safe (no Node imports,
 * no I/O): imported by the workflow, the activities and the API alike. Every
 * shape here lives in Temporal history forever: extend only with optional fields.
 * zod/mini, like the ingest workflow input: workflow code is re-evaluated for
 * every run and the full zod API costs CPU there.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import * as z from 'zod/mini';

/** The workflow type (stored in history: never rename). */
export const SESSION_WORKFLOW_TYPE = 'session';

/** One workflow id per working-memory task: a later run after expiry reuses it. */
export function sessionWorkflowId(namespace: string, taskId: string): string {
  return `session:${namespace}:${taskId}`;
}

/** More than this many unsummarized turns triggers a fold... */
export const SUMMARIZE_ABOVE_TURNS = 20;
/** ...that leaves this many recent turns verbatim. */
export const KEEP_VERBATIM_TURNS = 10;
/** Signals handled by one run before it continues as new (keeps histories short). */
export const SIGNALS_BEFORE_CONTINUE_AS_NEW = 200;

/**
 * A turn was committed to `session_turn`. Only ids and indexes travel through
 * history, never the turn's content (the row already holds it).
 */
export const turnSignalSchema = z.object({
  sessionId: z.uuid(),
  turnIndex: z.number().check(z.int(), z.nonnegative()),
  /** The session's inactivity TTL in effect after this turn (ttl_seconds, else SESSION_TTL). */
  ttlMs: z.number().check(z.int(), z.positive()),
});
export type TurnSignal = z.infer<typeof turnSignalSchema>;

export const turnSignal = defineSignal<[TurnSignal]>('turn');

/** The live state of a session run, as carried across continue-as-new and shown by the `state` query. */
export const sessionRunStateSchema = z.object({
  sessionId: z.nullable(z.uuid()),
  /** Turns known to exist: the highest turn index seen + 1. */
  turnCount: z.number().check(z.int(), z.nonnegative()),
  /** Turns with a lower index are folded into the summary. */
  summarizedThrough: z.number().check(z.int(), z.nonnegative()),
  ttlMs: z.number().check(z.int(), z.positive()),
  /** Workflow time (epoch ms) of the last turn, or of the last re-arm of the timer. */
  lastActivityMs: z.number(),
});
export type SessionRunState = z.infer<typeof sessionRunStateSchema>;

export interface SessionStateView extends SessionRunState {
  status: 'opening' | 'active' | 'archived';
  /** Workflow time (epoch ms) when the timer fires next. */
  expiresAtMs: number;
  signalsThisRun: number;
}

export const stateQuery = defineQuery<SessionStateView>('state');

export const sessionWorkflowInputSchema = z.object({
  namespace: z.string().check(z.minLength(1)),
  taskId: z.string().check(z.minLength(1)),
  /** Present when a run continues as new. */
  carried: z.optional(sessionRunStateSchema),
});
export type SessionWorkflowInput = z.infer<typeof sessionWorkflowInputSchema>;

// Activity shapes.

export interface OpenSessionInput {
  namespace: string;
  taskId: string;
}
export interface OpenedSession {
  sessionId: string;
  turnCount: number;
  summarizedThrough: number;
  ttlMs: number;
}

export interface SummarizeSessionInput {
  sessionId: string;
  /** Fold every turn below this index into the summary. */
  throughTurn: number;
}
export interface SummarizedSession {
  summarizedThrough: number;
}

export interface ExpireSessionInput {
  sessionId: string;
  /** The turns the workflow knows of: a session with more (a turn whose signal is still on its way) is not archived. */
  expectedTurnCount: number;
}

/**
 * archived: this call archived it. kept-alive: its persistent task is active or
 * paused. new-turns: a turn arrived since. not-active: already archived (or gone).
 */
export type ArchiveOutcome = 'archived' | 'kept-alive' | 'new-turns' | 'not-active';
export interface ExpiredSession {
  outcome: ArchiveOutcome;
  /** With `new-turns`: the turns the row holds (some signals may have been lost while Temporal was down). */
  turnCount?: number;
}
