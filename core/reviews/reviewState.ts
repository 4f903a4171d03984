/**
 * The review workflow's state, as plain logic (workflow-safe, unit-tested):
 * which signal counts as the decision, which are ignored and why, and when the
 * item escalates. The API checks decisions with the same `decisionProblem`.
 */
import {
  INFORMATIONAL_KINDS,
  plainDecisionArgsSchema,
  resolveDecisionArgsSchema,
  type AcceptedDecision,
  type IgnoredSignal,
  type PlainDecisionArgs,
  type ReviewDecisionName,
  type ReviewKind,
  type ReviewSubject,
  type ReviewWorkflowState,
} from './contracts.js';

export const DEFAULT_DECIDER = 'temporal:signal';
/** Ignored signals kept for the state query (the count keeps growing). */
const IGNORED_KEPT = 20;

/** Why a decision cannot be taken: `invalid` (400: bad argument) or `conflict` (409: not for this item). */
export interface DecisionProblem {
  status: 'invalid' | 'conflict';
  field: string;
  message: string;
}

/**
 * Checks a decision against the item: `resolve` is for conflicts only and must
 * keep one of the item's facts; a conflict needs its two facts to be decided.
 */
export function decisionProblem(
  item: { kind: ReviewKind; factIds: string[] },
  decision: ReviewDecisionName,
  keepFactId?: string | null,
): DecisionProblem | null {
  if (decision === 'resolve') {
    if (item.kind !== 'conflict') {
      return { status: 'conflict', field: 'decision', message: `resolve applies to conflict items only; this is a ${item.kind} item: approve or reject it` };
    }
    if (!keepFactId || !item.factIds.includes(keepFactId)) {
      return { status: 'invalid', field: 'keep_fact_id', message: `must be one of the item's facts: ${item.factIds.join(', ')}` };
    }
  }
  if (item.kind === 'conflict' && item.factIds.length < 2) {
    return { status: 'conflict', field: 'fact_ids', message: 'this conflict item does not name two facts' };
  }
  return null;
}

/**
 * The fact a conflict keeps: the one named by `resolve`; `approve` accepts the
 * new candidate (fact_ids[1]) and `reject` keeps the existing fact (fact_ids[0]).
 * Null for other kinds.
 */
export function keptFactOf(item: { kind: ReviewKind; factIds: string[] }, decision: ReviewDecisionName, keepFactId?: string | null): string | null {
  if (item.kind !== 'conflict') return null;
  if (decision === 'resolve') return keepFactId ?? null;
  return decision === 'approve' ? (item.factIds[1] ?? null) : (item.factIds[0] ?? null);
}

/** Whether an item of this kind escalates when nobody decides it in time. */
export function escalates(kind: ReviewKind): boolean {
  return !INFORMATIONAL_KINDS.includes(kind);
}

/** Milliseconds left before an item created at `createdAtMs` escalates (0: due now). */
export function escalationDelayMs(createdAtMs: number, escalateAfterMs: number, nowMs: number): number {
  return Math.max(0, createdAtMs + escalateAfterMs - nowMs);
}

function issueText(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');
}

/** The live state of one review workflow: the first valid decision wins; everything else is recorded as ignored. */
export class ReviewState {
  decision: AcceptedDecision | null = null;
  escalated: boolean;
  private ignored: IgnoredSignal[] = [];
  private ignoredCount = 0;

  constructor(readonly subject: ReviewSubject) {
    this.escalated = subject.escalatedAt !== null;
  }

  get decided(): boolean {
    return this.decision !== null;
  }

  /** Takes a signal's raw argument; returns null when it became the decision, else why it was ignored. */
  receive(signal: ReviewDecisionName, raw: unknown): IgnoredSignal | null {
    if (this.decision) return this.ignore(signal, `already decided: ${this.decision.decision}`);
    const parsed = signal === 'resolve' ? resolveDecisionArgsSchema.safeParse(raw) : plainDecisionArgsSchema.safeParse(raw);
    if (!parsed.success) return this.ignore(signal, `invalid argument: ${issueText(parsed.error)}`);
    const args: PlainDecisionArgs & { keep_fact_id?: string } = parsed.data ?? {};
    const keepFactId = args.keep_fact_id ?? null;
    const problem = decisionProblem(this.subject, signal, keepFactId);
    if (problem) return this.ignore(signal, `${problem.field}: ${problem.message}`);
    this.decision = {
      decision: signal,
      keepFactId: keptFactOf(this.subject, signal, keepFactId),
      by: args.by ?? DEFAULT_DECIDER,
      note: args.note ?? null,
      requestId: args.request_id ?? null,
    };
    return null;
  }

  snapshot(): ReviewWorkflowState {
    return {
      reviewId: this.subject.reviewId,
      kind: this.subject.kind,
      decision: this.decision,
      escalated: this.escalated,
      ignored: [...this.ignored],
      ignoredCount: this.ignoredCount,
    };
  }

  private ignore(signal: string, reason: string): IgnoredSignal {
    const ignored = { signal, reason };
    this.ignoredCount++;
    this.ignored.push(ignored);
    if (this.ignored.length > IGNORED_KEPT) this.ignored.shift();
    return ignored;
  }
}
