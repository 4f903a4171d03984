import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { episodeWorkflowId } from '../ingest/contracts.js';
import { runsStagesLocally, startExtraction } from '../ingest/startExtraction.js';
import type { SessionRow } from './rows.js';

export interface SummaryToRecord {
  session: SessionRow;
  throughTurn: number;
  final: boolean;
  /** The running summary after this fold (`session_summary.content`). */
  content: string;
  /** What this fold added, written as an episode so its facts reach the graph; null when it added nothing. */
  episodeContent: string | null;
  /** When the newest folded turn was said: the episode's event time. */
  occurredAt: Date;
  recordedAt: Date;
}

export interface RecordedSummary {
  summaryId: string;
  episodeId: string | null;
}

export function summaryEpisodeSource(taskId: string): string {
  return `session:${taskId}`;
}

/**
 * Writes the `session_summary` row and its episode in the caller's
 * transaction. Idempotent: the summary row is unique per (session,
 * through_turn, final) and stores the episode id, so a retried fold finds both
 * rows and writes neither again.
 */
export async function recordSummary(tx: PoolClient, s: SummaryToRecord): Promise<RecordedSummary> {
  const { rows: existing } = await tx.query<{ id: string; episode_id: string | null }>(
    'SELECT id, episode_id FROM session_summary WHERE session_id = $1 AND through_turn = $2 AND final = $3',
    [s.session.id, s.throughTurn, s.final],
  );
  if (existing[0]) return { summaryId: existing[0].id, episodeId: existing[0].episode_id };

  const summaryId = randomUUID();
  const episodeId = s.episodeContent ? randomUUID() : null;
  if (episodeId && s.episodeContent) {
    await tx.query(
      `INSERT INTO episode (id, namespace, user_id, agent_id, run_id, speaker, content, source, metadata, occurred_at,
                            t_valid_override, skip_extraction, workflow_id, recorded_at)
       VALUES ($1, $2, $3, $4, $5, NULL, $6, $7, $8::jsonb, $9, NULL, false, $10, $11)
       ON CONFLICT (id) DO NOTHING`,
      [
        episodeId,
        s.session.namespace,
        s.session.user_id,
        s.session.agent_id,
        s.session.task_id,
        s.episodeContent,
        summaryEpisodeSource(s.session.task_id),
        JSON.stringify({ kind: 'session_summary', session_id: s.session.id, summary_id: summaryId, through_turn: s.throughTurn, final: s.final }),
        s.occurredAt,
        episodeWorkflowId(episodeId),
        s.recordedAt,
      ],
    );
  }
  await tx.query(
    `INSERT INTO session_summary (id, session_id, namespace, through_turn, final, content, episode_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [summaryId, s.session.id, s.session.namespace, s.throughTurn, s.final, s.content, episodeId, s.recordedAt],
  );
  return { summaryId, episodeId };
}

/** Starts extraction of a summary episode after its commit; if Temporal refuses, the reconcile schedule starts pending episodes later. */
export async function startSummaryExtraction(deps: Pick<Deps, 'temporal' | 'config' | 'logger'>, episodeId: string | null): Promise<void> {
  if (!episodeId) return;
  try {
    await startExtraction(deps.temporal, { episodeId, localStages: runsStagesLocally(deps.config) });
  } catch (err) {
    deps.logger.warn({ err, episodeId, workflowId: episodeWorkflowId(episodeId) }, 'could not start extraction of a session summary; reconcile will retry');
  }
}

/** The episode of the summary written through `throughTurn` (null when none was written or it added nothing). */
export async function summaryEpisodeId(deps: Pick<Deps, 'pool'>, sessionId: string, throughTurn: number, final: boolean): Promise<string | null> {
  const { rows } = await deps.pool.query<{ episode_id: string | null }>(
    'SELECT episode_id FROM session_summary WHERE session_id = $1 AND through_turn = $2 AND final = $3',
    [sessionId, throughTurn, final],
  );
  return rows[0]?.episode_id ?? null;
}
