import { archiveSession } from '../core/sessions/archive.js';
import type { ExpiredSession, ExpireSessionInput, OpenedSession, OpenSessionInput, SummarizedSession, SummarizeSessionInput } from '../core/sessions/contracts.js';
import { foldSession } from '../core/sessions/fold.js';
import { openSession } from '../core/sessions/open.js';
import { createSessionSummarizer } from '../core/sessions/summarizer.js';
import { currentWorkflow } from './context.js';
import type { ActivityDeps } from './deps.js';

const ACTOR = 'workflow:session';

function workflowCause() {
  const wf = currentWorkflow();
  return { actor: ACTOR, workflowId: wf.workflowId, runId: wf.runId };
}

/** The session workflow's activities (names are stored in history: do not rename). All idempotent. */
export function createSessionActivities(deps: ActivityDeps) {
  const summarizer = createSessionSummarizer(deps.config, deps.logger);
  return {
    /** The task's active session row, opened if none is active. */
    async openSession(input: OpenSessionInput): Promise<OpenedSession> {
      return openSession(deps, input.namespace, input.taskId, workflowCause());
    },

    /** Folds the turns below `throughTurn` into the running summary (+ summary row, episode, extraction). */
    async summarizeSession(input: SummarizeSessionInput): Promise<SummarizedSession> {
      return foldSession(deps, summarizer, input.sessionId, input.throughTurn, workflowCause());
    },

    /** The timer fired: archive the session unless a turn arrived since or its persistent task keeps it alive. */
    async expireSession(input: ExpireSessionInput): Promise<ExpiredSession> {
      const { outcome } = await archiveSession(deps, input.sessionId, { expectedTurnCount: input.expectedTurnCount, summarizer, cause: workflowCause() });
      if (outcome !== 'new-turns') return { outcome };
      // Turns the workflow was never signalled about (the API could not reach Temporal) are in the row: report them.
      const { rows } = await deps.pool.query<{ turn_count: number }>('SELECT turn_count FROM work_session WHERE id = $1', [input.sessionId]);
      return { outcome, turnCount: rows[0]?.turn_count };
    },
  };
}
