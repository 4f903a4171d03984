import { writeAudit } from '../core/audit/auditLog.js';
import { currentWorkflow } from './context.js';
import { ApplicationFailure } from '@temporalio/activity';
import type { BeginResult, EpisodeSnapshot } from '../core/ingest/contracts.js';
import { storeEpisodeVectors } from '../core/memories/episodeVectors.js';
import { FORGOTTEN_BEFORE_EXTRACTION, FORGOTTEN_DURING_EXTRACTION } from '../core/memories/forget.js';
import type { ActivityDeps } from './deps.js';
import { searchAttributesUsable } from '../core/temporal/searchAttributes.js';
import { contentTypeOf, isProse } from '../core/sources/contentType.js';

interface EpisodeRow {
  id: string;
  namespace: string;
  user_id: string | null;
  agent_id: string | null;
  run_id: string | null;
  speaker: string | null;
  content: string;
  source: string | null;
  metadata: Record<string, unknown>;
  occurred_at: Date;
  t_valid_override: Date | null;
  skip_extraction: boolean;
  status: string;
  has_embedding: boolean;
  timezone: string | null;
  forgotten: boolean;
  content_type: string;
}

function snapshot(row: EpisodeRow): EpisodeSnapshot {
  return {
    id: row.id,
    namespace: row.namespace,
    userId: row.user_id,
    agentId: row.agent_id,
    runId: row.run_id,
    speaker: row.speaker ?? row.user_id,
    content: row.content,
    source: row.source,
    metadata: row.metadata,
    occurredAt: row.occurred_at.toISOString(),
    tValidOverride: row.t_valid_override?.toISOString() ?? null,
    skipExtraction: row.skip_extraction,
    status: row.status,
    timezone: row.timezone,
    contentType: contentTypeOf({ contentType: row.content_type }),
  };
}

export function createLifecycleActivities(deps: ActivityDeps) {
  /** The claim itself (see beginExtraction). */
  async function claimEpisode(input: { episodeId: string }): Promise<BeginResult> {
    const runId = currentWorkflow().runId;
    const { rows } = await deps.pool.query<EpisodeRow>(
      `UPDATE episode
          SET status = CASE WHEN forgotten_at IS NOT NULL OR (skip_extraction AND embedding IS NOT NULL) THEN 'skipped' ELSE 'extracting' END,
              extraction_count = extraction_count + (workflow_run_id IS DISTINCT FROM $2 AND forgotten_at IS NULL)::int,
              workflow_run_id = $2, error = CASE WHEN forgotten_at IS NOT NULL THEN $3 END, updated_at = now()
        WHERE id = $1 AND status IN ('pending', 'extracting', 'failed')
        RETURNING id, namespace, user_id, agent_id, run_id, speaker, content, source, metadata, occurred_at,
                  t_valid_override, skip_extraction, status, embedding IS NOT NULL AS has_embedding,
                  forgotten_at IS NOT NULL AS forgotten, content_type,
                  COALESCE(timezone, (SELECT n.timezone FROM namespace n WHERE n.id = episode.namespace)) AS timezone`,
      [input.episodeId, runId, FORGOTTEN_BEFORE_EXTRACTION],
    );
    const row = rows[0];
    if (!row) {
      const current = await deps.pool.query<{ status: string; forgotten: boolean }>(
        'SELECT status, forgotten_at IS NOT NULL AS forgotten FROM episode WHERE id = $1',
        [input.episodeId],
      );
      if (!current.rows[0]) throw ApplicationFailure.nonRetryable(`episode ${input.episodeId} does not exist`, 'EpisodeNotFound');
      return { proceed: false, status: current.rows[0].status };
    }
    if (row.forgotten) return { proceed: false, status: 'skipped' };
    if (!row.has_embedding) {
      // Derived data, recomputed on the next extraction if a crash loses it: no need to wait for the WAL flush.
      const passages = deps.config.EPISODE_PASSAGES && isProse(contentTypeOf({ contentType: row.content_type }));
      await storeEpisodeVectors(deps.telemetryPool, deps.embedder, [row], { passages });
    }
    if (row.skip_extraction && row.status !== 'skipped') {
      // Skipped only once embedded: a caller that sees `skipped` can search it (it read `skipped` before the
      // vector was stored, and a slow machine let a test catch that).
      await deps.pool.query(`UPDATE episode SET status = 'skipped', updated_at = now() WHERE id = $1 AND status = 'extracting'`, [row.id]);
      return { proceed: false, status: 'skipped' };
    }
    if (row.status === 'skipped') return { proceed: false, status: 'skipped' };
    return { proceed: true, episode: snapshot(row) };
  }

  return {
    /**
     * Claims the episode for this workflow run (pending/failed → extracting, or
     * skipped) and embeds its content so it is searchable whatever happens next.
     * One forgotten before this run claimed it ends skipped with the reason
     * (a restore makes it pending and starts a new run).
     */
    async beginExtraction(input: { episodeId: string }): Promise<BeginResult> {
      // Whether the workflow may set its search attributes (not on a server without them, e.g. the time-skipping one).
      const searchAttributes = await searchAttributesUsable(deps.temporal, deps.config.TEMPORAL_NAMESPACE);
      return { ...(await claimEpisode(input)), searchAttributes };
    },

    /**
     * Marks the episode failed with the reason; it stays searchable and can be
     * retried. One forgotten meanwhile ends skipped (nothing was to be learnt
     * from it anyway); the audit row keeps the failure.
     */
    async failExtraction(input: { episodeId: string; error: string }): Promise<void> {
      const wf = currentWorkflow();
      const { rows } = await deps.pool.query<{ namespace: string }>(
        `UPDATE episode SET status = CASE WHEN forgotten_at IS NULL THEN 'failed' ELSE 'skipped' END,
                error = CASE WHEN forgotten_at IS NULL THEN $2 ELSE $3 END, updated_at = now()
          WHERE id = $1 AND status <> 'extracted' RETURNING namespace`,
        [input.episodeId, input.error.slice(0, 4000), FORGOTTEN_DURING_EXTRACTION],
      );
      if (rows[0]) {
        await writeAudit(
          deps.pool,
          { namespace: rows[0].namespace, actor: 'workflow:ingestEpisode', workflowId: wf.workflowId, runId: wf.runId, episodeId: input.episodeId },
          [{ action: 'episode.extraction_failed', targetType: 'episode', targetId: input.episodeId, after: { error: input.error } }],
        );
      }
    },
  };
}
