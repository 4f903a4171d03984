import { allHandlersFinished, condition, continueAsNew, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  sessionWorkflowInputSchema,
  stateQuery,
  turnSignal,
  turnSignalSchema,
  type SessionWorkflowInput,
} from '../core/sessions/contracts.js';
import { SessionState } from '../core/sessions/state.js';

type SessionActivities = Pick<Activities, 'openSession' | 'summarizeSession' | 'expireSession'>;

const rows = proxyActivities<Pick<SessionActivities, 'openSession'>>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
});
// With LLM_PROVIDER=openai a fold (and the final one on archive) is a model call.
const folds = proxyActivities<Pick<SessionActivities, 'summarizeSession'>>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
const archives = proxyActivities<Pick<SessionActivities, 'expireSession'>>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Working memory of one task id (workflow id `session:<namespace>:<task_id>`,
 * signal-with-started by every turn). The turn rows are already committed when
 * a `turn` signal arrives; this run keeps the inactivity timer, folds the
 * oldest turns into the running summary past 20 unsummarized turns, and on
 * expiry archives the session (final summary + episode) and completes. A
 * persistent task's session is re-armed instead while the task is active.
 */
export async function session(rawInput: SessionWorkflowInput): Promise<{ sessionId: string | null; turnCount: number }> {
  const input = sessionWorkflowInputSchema.parse(rawInput);
  // The TTL until the first activity reports the session's own; a signal carries it too.
  const state = input.carried ? new SessionState(input.carried) : SessionState.fresh(3_600_000, Date.now());

  setHandler(turnSignal, (raw) => state.onTurn(turnSignalSchema.parse(raw), Date.now()));
  setHandler(stateQuery, () => state.view());

  if (!input.carried) state.attach(await rows.openSession({ namespace: input.namespace, taskId: input.taskId }));

  for (;;) {
    const fold = state.summaryDue();
    if (fold) {
      const { summarizedThrough } = await folds.summarizeSession(fold);
      state.summarized(fold.sessionId, summarizedThrough);
      continue;
    }
    if (state.shouldContinueAsNew()) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof session>({ namespace: input.namespace, taskId: input.taskId, carried: state.carry() });
    }
    const version = state.changeVersion;
    const remaining = state.msUntilExpiry(Date.now());
    if (remaining > 0 && (await condition(() => state.changeVersion !== version, remaining))) continue;

    const sessionId = state.currentSessionId;
    if (sessionId === null) return { sessionId, turnCount: 0 };
    const { outcome, turnCount } = await archives.expireSession({ sessionId, expectedTurnCount: state.knownTurnCount });
    if (outcome === 'archived' || outcome === 'not-active') {
      state.markArchived(sessionId);
      // A turn that opened a fresh session while we archived keeps this run going.
      if (!state.isArchived()) continue;
      await condition(allHandlersFinished);
      log.info('session archived', { sessionId, outcome });
      return { sessionId, turnCount: state.knownTurnCount };
    }
    // kept-alive (persistent task) or new-turns (a signal on its way, or lost while Temporal was down: the
    // row's count is adopted so the next expiry can archive, and a fold falls due if the turns passed 20).
    if (turnCount !== undefined) state.catchUp(turnCount);
    state.rearm(Date.now());
  }
}
