import { allHandlersFinished, condition, continueAsNew, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  approveSignal,
  rejectSignal,
  resolveSignal,
  reviewStateQuery,
  reviewWorkflowInputSchema,
  type ReviewDecisionName,
  type ReviewOutcome,
} from '../core/reviews/contracts.js';
import { escalates, escalationDelayMs, ReviewState } from '../core/reviews/reviewState.js';
import type { ReviewWorkflowInput } from '../core/reviews/start.js';

const books = proxyActivities<Pick<Activities, 'loadReviewItem' | 'escalateReview' | 'applyReviewDecision'>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
// A webhook that stays down must not hold the item up: a few attempts, then the workflow keeps waiting.
const webhook = proxyActivities<Pick<Activities, 'notifyReviewWebhook'>>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * One review item waiting for a person (`review:<id>`): it takes the first
 * valid `approve`, `reject` or `resolve` signal (invalid ones are recorded and
 * ignored), escalates once if nobody decides within REVIEW_ESCALATE_AFTER of
 * the item's creation (flag, audit row, webhook) and keeps waiting, then
 * applies the decision in one idempotent activity.
 */
export async function review(rawInput: ReviewWorkflowInput): Promise<ReviewOutcome> {
  const { reviewId } = reviewWorkflowInputSchema.parse(rawInput);
  let state: ReviewState | null = null;
  // Handlers from the first moment; signals that arrive while the item loads are taken afterwards, in arrival order.
  const early: Array<[ReviewDecisionName, unknown]> = [];
  const take = (signal: ReviewDecisionName, args: unknown) => {
    if (!state) return void early.push([signal, args]);
    const ignored = state.receive(signal, args);
    if (ignored) log.warn('review signal ignored', { reviewId, ...ignored });
  };
  setHandler(approveSignal, (args?: unknown) => take('approve', args));
  setHandler(rejectSignal, (args?: unknown) => take('reject', args));
  setHandler(resolveSignal, (args?: unknown) => take('resolve', args));
  setHandler(reviewStateQuery, () => state?.snapshot() ?? null);

  const subject = await books.loadReviewItem({ reviewId });
  if (!subject) return { reviewId, outcome: 'missing', decision: null, applied: false };
  if (subject.status !== 'open') return { reviewId, outcome: 'already_decided', decision: null, applied: false };
  const live = new ReviewState(subject);
  state = live;
  for (const [signal, args] of early.splice(0)) take(signal, args);

  const historyFull = () => workflowInfo().continueAsNewSuggested;
  if (subject.escalateAfterMs !== null && escalates(subject.kind) && !live.escalated) {
    const delay = escalationDelayMs(Date.parse(subject.createdAt), subject.escalateAfterMs, Date.now());
    const woke = delay > 0 ? await condition(() => live.decided || historyFull(), delay) : false;
    if (!woke) {
      const { stillOpen } = await books.escalateReview({ reviewId });
      // Histories recorded before `stillOpen` existed carry no such field: they go on as they did.
      if (stillOpen === false) return { reviewId, outcome: 'already_decided', decision: null, applied: false };
      live.escalated = true;
      try {
        await webhook.notifyReviewWebhook({ reviewId });
      } catch (err) {
        log.warn('review escalation webhook failed; the item stays escalated and waiting', { reviewId, error: String(err) });
      }
    }
  }
  await condition(() => live.decided || historyFull());
  if (!live.decision) {
    // A long wait full of ignored signals: start afresh (the item's escalation is on its row).
    await condition(allHandlersFinished);
    return continueAsNew<typeof review>({ reviewId });
  }
  const decision = live.decision;
  const result = await books.applyReviewDecision({ reviewId, workflowId: workflowInfo().workflowId, runId: workflowInfo().runId, ...decision });
  await condition(allHandlersFinished);
  return { reviewId, outcome: result.alreadyDecided ? 'already_decided' : 'decided', decision: decision.decision, applied: result.applied };
}
