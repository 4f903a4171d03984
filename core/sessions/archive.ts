import { writeAudit, type AuditCause } from '../audit/auditLog.js';
import { withTransaction } from '../db/pool.js';
import type { ArchiveOutcome } from './contracts.js';
import { computeFold, type SessionWorkDeps } from './fold.js';
import { effectiveTtlMs, KEEPS_SESSION_ALIVE, loadSession, persistentTaskOf } from './rows.js';
import { createSessionSummarizer, type SessionSummarizer } from './summarizer.js';
import { recordSummary, startSummaryExtraction, summaryEpisodeId } from './summaryRecord.js';

export interface ArchiveOptions {
  /** Archive only if the session still has exactly this many turns (the workflow's view; a later turn keeps it open). */
  expectedTurnCount?: number;
  summarizer?: SessionSummarizer;
  cause?: Omit<AuditCause, 'namespace'>;
}

const summarizers = new WeakMap<object, SessionSummarizer>();

function summarizerFor(deps: SessionWorkDeps): SessionSummarizer {
  let summarizer = summarizers.get(deps.config);
  if (!summarizer) summarizers.set(deps.config, (summarizer = createSessionSummarizer(deps.config, deps.logger)));
  return summarizer;
}

/**
 * Archives an expired session: the remaining turns are folded into a final
 * summary (a `session_summary` row with final = true, and an episode so their
 * facts reach the graph), the row becomes `archived` and the turns stay in
 * `session_turn`. Idempotent: an archived session is left as is. Not while
 * the session's persistent task is active or paused (its expiry is pushed
 * back a TTL instead). Used by the session workflow when its timer fires and
 * by the dream for idle sessions whose workflow is gone.
 */
export async function archiveSession(
  deps: SessionWorkDeps,
  sessionId: string,
  options: ArchiveOptions = {},
): Promise<{ archived: boolean; outcome: ArchiveOutcome }> {
  const cause = options.cause ?? { actor: 'system:session-archive' };
  const session = await loadSession(deps.pool, sessionId);
  if (!session) return { archived: false, outcome: 'not-active' };
  if (session.status !== 'active') {
    // A retry after the commit: make sure the final summary's episode is being extracted (starting is idempotent).
    await startSummaryExtraction(deps, await summaryEpisodeId(deps, sessionId, session.turn_count, true));
    return { archived: false, outcome: 'not-active' };
  }
  if (options.expectedTurnCount !== undefined && session.turn_count !== options.expectedTurnCount) return { archived: false, outcome: 'new-turns' };

  const task = await persistentTaskOf(deps.pool, session.namespace, session.task_id);
  if (task && KEEPS_SESSION_ALIVE.has(task.status)) {
    await deps.pool.query(
      `UPDATE work_session SET persistent_task_id = $2, expires_at = $3::timestamptz + make_interval(secs => $4::float8 / 1000), updated_at = now()
        WHERE id = $1 AND status = 'active'`,
      [sessionId, task.id, deps.now(), effectiveTtlMs(session.ttl_seconds, deps.config)],
    );
    return { archived: false, outcome: 'kept-alive' };
  }

  // The model call (openai) runs outside the transaction; the row is re-checked under its lock.
  const fold = await computeFold(deps, options.summarizer ?? summarizerFor(deps), session, session.turn_count);
  const result = await withTransaction(deps.pool, async (tx) => {
    const locked = await loadSession(tx, sessionId, true);
    if (!locked || locked.status !== 'active') return { outcome: 'not-active' as const, episodeId: null };
    if (locked.turn_count !== session.turn_count || locked.summarized_through !== session.summarized_through) {
      return { outcome: 'new-turns' as const, episodeId: null };
    }
    const now = deps.now();
    const recorded = fold
      ? await recordSummary(tx, {
          session: locked,
          throughTurn: locked.turn_count,
          final: true,
          content: fold.content,
          episodeContent: fold.additions,
          occurredAt: fold.occurredAt,
          recordedAt: now,
        })
      : null;
    await tx.query(
      `UPDATE work_session SET status = 'archived', archived_at = $2, summary = $3, summarized_through = turn_count, updated_at = now()
        WHERE id = $1`,
      [sessionId, now, fold?.content ?? locked.summary],
    );
    await writeAudit(tx, { ...cause, namespace: locked.namespace, episodeId: recorded?.episodeId ?? null }, [
      {
        action: 'session.archive',
        targetType: 'work_session',
        targetId: sessionId,
        before: { status: 'active', turn_count: locked.turn_count },
        after: { status: 'archived', summary_id: recorded?.summaryId ?? null, episode_id: recorded?.episodeId ?? null },
      },
    ]);
    return { outcome: 'archived' as const, episodeId: recorded?.episodeId ?? null };
  });
  if (result.outcome !== 'archived') return { archived: false, outcome: result.outcome };
  await startSummaryExtraction(deps, result.episodeId);
  return { archived: true, outcome: 'archived' };
}
