import { ApplicationFailure } from '@temporalio/common';
import { writeAudit, type AuditCause } from '../audit/auditLog.js';
import { withTransaction } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { loadSession, loadTurns, type SessionRow } from './rows.js';
import type { SessionSummarizer } from './summarizer.js';
import { isEmptySummary, parseSummary, renderSummary, summaryAdditions } from './summary.js';
import { recordSummary, startSummaryExtraction, summaryEpisodeId } from './summaryRecord.js';

export type SessionWorkDeps = Pick<Deps, 'pool' | 'temporal' | 'config' | 'logger' | 'now'>;

export interface ComputedFold {
  /** The running summary after folding the turns. */
  content: string;
  /** What the fold added (the episode's content), or null. */
  additions: string | null;
  /** When the newest folded turn was said. */
  occurredAt: Date;
}

/** Folds turns [session.summarized_through, throughTurn) into the session's summary; null when there is no turn to fold. */
export async function computeFold(
  deps: Pick<Deps, 'pool' | 'now'>,
  summarizer: SessionSummarizer,
  session: SessionRow,
  throughTurn: number,
): Promise<ComputedFold | null> {
  const turns = await loadTurns(deps.pool, session, session.summarized_through, throughTurn);
  if (turns.length === 0) return null;
  const previous = parseSummary(session.summary);
  const next = await summarizer(session.summary ? previous : null, turns);
  const added = summaryAdditions(previous, next);
  return {
    content: renderSummary(next),
    additions: isEmptySummary(added) ? null : renderSummary(added),
    occurredAt: turns[turns.length - 1].createdAt,
  };
}

/**
 * The running fold: turns below `throughTurn` go into the summary, a
 * `session_summary` row and an episode record it, and extraction of that
 * episode starts. Idempotent: a session already summarized that far is left as is.
 */
export async function foldSession(
  deps: SessionWorkDeps,
  summarizer: SessionSummarizer,
  sessionId: string,
  throughTurn: number,
  cause: Omit<AuditCause, 'namespace'>,
): Promise<{ summarizedThrough: number }> {
  const session = await loadSession(deps.pool, sessionId);
  if (!session) throw ApplicationFailure.nonRetryable(`session ${sessionId} does not exist`, 'SessionNotFound');
  const target = Math.min(throughTurn, session.turn_count);
  if (session.summarized_through >= target) {
    // A retry after the commit: make sure that fold's episode is being extracted (starting is idempotent).
    await startSummaryExtraction(deps, await summaryEpisodeId(deps, sessionId, target, false));
    return { summarizedThrough: session.summarized_through };
  }

  // The model call (openai) runs outside the transaction; the row is re-checked under its lock.
  const fold = await computeFold(deps, summarizer, session, target);
  if (!fold) return { summarizedThrough: session.summarized_through };
  const written = await withTransaction(deps.pool, async (tx) => {
    const locked = await loadSession(tx, sessionId, true);
    if (!locked || locked.summarized_through !== session.summarized_through || locked.summary !== session.summary) return null;
    const recorded = await recordSummary(tx, {
      session: locked,
      throughTurn: target,
      final: false,
      content: fold.content,
      episodeContent: fold.additions,
      occurredAt: fold.occurredAt,
      recordedAt: deps.now(),
    });
    await tx.query('UPDATE work_session SET summary = $2, summarized_through = $3, updated_at = now() WHERE id = $1', [sessionId, fold.content, target]);
    await writeAudit(tx, { ...cause, namespace: locked.namespace, episodeId: recorded.episodeId }, [
      {
        action: 'session.summarize',
        targetType: 'work_session',
        targetId: sessionId,
        before: { summarized_through: locked.summarized_through },
        after: { summarized_through: target, summary_id: recorded.summaryId, episode_id: recorded.episodeId },
      },
    ]);
    return recorded;
  });
  if (!written) {
    // Another fold got there first (a retried activity): report where the session stands now.
    const now = await loadSession(deps.pool, sessionId);
    return { summarizedThrough: now?.summarized_through ?? session.summarized_through };
  }
  await startSummaryExtraction(deps, written.episodeId);
  return { summarizedThrough: target };
}
