import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { AuditEntry } from '../audit/auditLog.js';
import { writeAudit } from '../audit/auditLog.js';
import { withTransaction, type PoolClient } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { WORKFLOW_NAMES } from '../ingest/contracts.js';
import { runsStagesLocally } from '../ingest/startExtraction.js';
import { withDeadline } from '../temporal/client.js';
import type { Requester } from './forget.js';

/**
 * Updating a memory (PATCH /v1/memories/:id): the replaced content and
 * metadata are kept as a version in `episode_version`, new content is
 * extracted by a new workflow run, and when that run commits, the facts only
 * the old content supported are expired in system time (`settleReplacedContent`,
 * called by the commit stage inside its transaction). Facts the new content
 * states again keep their ids and history.
 */

/** Provenance relations that mean "this episode supports the fact" (as in forget.ts). */
const SUPPORTS = ['created', 'confirmed', 'refined'];

export interface MemoryPatch {
  content?: string;
  metadata?: Record<string, unknown>;
}

export interface UpdateResult {
  id: string;
  version: number;
  /** False when the patch changed nothing (no new version). */
  changed: boolean;
  content_changed: boolean;
  status: string;
  workflow_id: string;
  /** Whether the new content's extraction was handed to Temporal (else reconcile starts it). */
  started: boolean;
}

export interface VersionView {
  version: number;
  current: boolean;
  content: string;
  metadata: Record<string, unknown>;
  recorded_at: string;
  replaced_at: string | null;
  replaced_by: { actor: string; request_id: string | null } | null;
  workflow_id: string | null;
  /** Facts the content supported when it was replaced (ids). */
  supported_fact_ids: string[];
  /** The replacing content's extraction committed and the facts only this version supported were expired. */
  settled: boolean | null;
  facts_expired: number;
}

export class MemoryUpdateConflict extends Error {
  constructor(
    message: string,
    readonly status: string,
  ) {
    super(message);
    this.name = 'MemoryUpdateConflict';
  }
}

/** Runs after the first have their own id, so a finished first run never blocks (or is confused with) the next. */
export function episodeVersionWorkflowId(episodeId: string, version: number): string {
  return version <= 1 ? `episode:${episodeId}` : `episode:${episodeId}:v${version}`;
}

interface LockedEpisode {
  id: string;
  namespace: string;
  content: string;
  metadata: Record<string, unknown>;
  status: string;
  skip_extraction: boolean;
  forgotten: boolean;
  workflow_id: string;
  recorded_at: Date;
}

/** Locks the episode; serialized with forget/restore of its namespace, which read the same support links. */
async function lockEpisode(tx: PoolClient, id: string, who: Requester): Promise<LockedEpisode | null> {
  const { rows } = await tx.query<{ namespace: string }>('SELECT namespace FROM episode WHERE id = $1', [id]);
  const ns = rows[0]?.namespace;
  if (!ns || (who.namespace !== null && who.namespace !== ns)) return null;
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('forget:' || $1))`, [ns]);
  const locked = await tx.query<LockedEpisode>(
    `SELECT id, namespace, content, metadata, status, skip_extraction, forgotten_at IS NOT NULL AS forgotten, workflow_id, recorded_at
       FROM episode WHERE id = $1 FOR UPDATE`,
    [id],
  );
  return locked.rows[0] ?? null;
}

async function currentVersion(tx: PoolClient, episodeId: string): Promise<{ version: number; since: Date | null }> {
  const { rows } = await tx.query<{ version: number | null; since: Date | null }>(
    `SELECT max(version) AS version, max(replaced_at) AS since FROM episode_version WHERE episode_id = $1`,
    [episodeId],
  );
  return { version: (rows[0]?.version ?? 0) + 1, since: rows[0]?.since ?? null };
}

/**
 * Stores the patch. Null: no such episode for this requester. A content change
 * while the current content is still being extracted is refused
 * (MemoryUpdateConflict): the run would commit facts of content that is gone.
 */
export async function updateMemory(
  deps: Pick<Deps, 'pool' | 'temporal' | 'config' | 'logger'>,
  episodeId: string,
  patch: MemoryPatch,
  who: Requester,
  now: Date,
): Promise<UpdateResult | null> {
  const stored = await withTransaction(deps.pool, async (tx) => {
    const ep = await lockEpisode(tx, episodeId, who);
    if (!ep) return null;
    if (ep.forgotten) throw new MemoryUpdateConflict('Memory is forgotten; restore it before updating it', ep.status);
    const contentChanged = patch.content !== undefined && patch.content !== ep.content;
    const metadataChanged = patch.metadata !== undefined && JSON.stringify(patch.metadata) !== JSON.stringify(ep.metadata);
    const { version, since } = await currentVersion(tx, ep.id);
    if (!contentChanged && !metadataChanged) {
      return { ep, version, changed: false, contentChanged: false, workflowId: ep.workflow_id, status: ep.status };
    }
    if (contentChanged && (ep.status === 'pending' || ep.status === 'extracting')) {
      throw new MemoryUpdateConflict(`Memory is ${ep.status}; its content can change once its extraction has finished`, ep.status);
    }
    const supported = contentChanged
      ? (
          await tx.query<{ fact_id: string }>(
            `SELECT DISTINCT fact_id FROM fact_episode WHERE episode_id = $1 AND relation = ANY($2::text[]) ORDER BY fact_id`,
            [ep.id, SUPPORTS],
          )
        ).rows.map((r) => r.fact_id)
      : [];
    // Settled now unless a run of the new content will commit (and expire what only this content said).
    const awaitsRun = contentChanged && !ep.skip_extraction;
    await tx.query(
      `INSERT INTO episode_version (episode_id, version, content, metadata, recorded_at, workflow_id, replaced_at,
                                    replaced_by_actor, replaced_by_request, supported_fact_ids, settled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::uuid[], CASE WHEN $11::boolean THEN NULL ELSE $7::timestamptz END)`,
      [ep.id, version, ep.content, JSON.stringify(ep.metadata), since ?? ep.recorded_at, ep.workflow_id, now, who.actor, who.requestId, supported, awaitsRun],
    );
    const next = version + 1;
    const workflowId = contentChanged ? episodeVersionWorkflowId(ep.id, next) : ep.workflow_id;
    const { rows } = await tx.query<{ status: string }>(
      `UPDATE episode SET metadata = $2, updated_at = $5,
              content = $3,
              -- New content: embedded again at the start of its run, passages included; extracted again.
              embedding = CASE WHEN $4::boolean THEN NULL ELSE embedding END,
              embedding_model = CASE WHEN $4::boolean THEN NULL ELSE embedding_model END,
              has_passages = CASE WHEN $4::boolean THEN false ELSE has_passages END,
              status = CASE WHEN $4::boolean THEN 'pending' ELSE status END,
              error = CASE WHEN $4::boolean THEN NULL ELSE error END,
              workflow_id = $6
        WHERE id = $1 RETURNING status`,
      [ep.id, JSON.stringify(patch.metadata ?? ep.metadata), contentChanged ? patch.content : ep.content, contentChanged, now, workflowId],
    );
    if (contentChanged) await tx.query('DELETE FROM episode_passage WHERE episode_id = $1', [ep.id]);
    const entry: AuditEntry = {
      action: 'episode.updated',
      targetType: 'episode',
      targetId: ep.id,
      before: { version, status: ep.status, workflow_id: ep.workflow_id, ...(metadataChanged ? { metadata: ep.metadata } : {}) },
      after: { version: next, status: rows[0].status, workflow_id: workflowId, content_changed: contentChanged, ...(metadataChanged ? { metadata: patch.metadata } : {}), supported_facts: supported.length },
    };
    await writeAudit(tx, { namespace: ep.namespace, actor: who.actor, requestId: who.requestId, episodeId: ep.id }, [entry]);
    return { ep, version: next, changed: true, contentChanged, workflowId, status: rows[0].status };
  });
  if (!stored) return null;
  let started = false;
  if (stored.contentChanged) started = await startVersionRun(deps, stored.ep.id, stored.workflowId);
  return {
    id: stored.ep.id,
    version: stored.version,
    changed: stored.changed,
    content_changed: stored.contentChanged,
    status: stored.status,
    workflow_id: stored.workflowId,
    started,
  };
}

/** Starts the extraction of the new content; a failure is left to reconcile (the episode is pending and committed). */
async function startVersionRun(deps: Pick<Deps, 'temporal' | 'config' | 'logger'>, episodeId: string, workflowId: string): Promise<boolean> {
  try {
    await withDeadline(deps.temporal, 5_000, () =>
      deps.temporal.client.workflow.start(WORKFLOW_NAMES.ingestEpisode, {
        workflowId,
        taskQueue: deps.temporal.taskQueue,
        args: [{ episodeId, localStages: runsStagesLocally(deps.config) }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return true;
    deps.logger.warn({ err, episodeId, workflowId }, 'could not start extraction of updated memory; reconcile will');
    return false;
  }
}

const RETRACTED_REASON = 'memory content replaced';
const MOOT_REASON = 'the competing fact was retracted by a memory update';
const ACTOR = 'workflow:ingestEpisode';

/**
 * Called by the commit stage in its transaction: the facts that the replaced
 * content(s) supported, that this run did not state again and that no other
 * live episode supports, are retracted: no longer current in system time
 * (expired_at) with no world-time end, since the text that said them is gone,
 * not contradicted. The new content was planned against them as if they
 * still held, so what that planning did because of them is undone here: one
 * it ended in world time is retracted instead, and a conflict it opened
 * against one is moot (the new statement is believed, the item resolved).
 * Returns the audit rows.
 */
export async function settleReplacedContent(
  tx: PoolClient,
  episodeId: string,
  factLinks: ReadonlyArray<{ fact_id: string; relation: string }>,
): Promise<AuditEntry[]> {
  const { rows } = await tx.query<{ version: number; supported_fact_ids: string[] }>(
    'SELECT version, supported_fact_ids::text[] AS supported_fact_ids FROM episode_version WHERE episode_id = $1 AND settled_at IS NULL ORDER BY version FOR UPDATE',
    [episodeId],
  );
  if (rows.length === 0) return [];
  const statedAgain = new Set(factLinks.filter((l) => SUPPORTS.includes(l.relation)).map((l) => l.fact_id));
  const endedNow = factLinks.filter((l) => l.relation === 'invalidated').map((l) => l.fact_id);
  const candidates = [...new Set(rows.flatMap((r) => r.supported_fact_ids))].filter((id) => !statedAgain.has(id));
  const replaced = rows[rows.length - 1].version;
  const marker = JSON.stringify({ retracted_by: { episode_id: episodeId, version: replaced } });
  // Still current, or ended by this very commit: either way only the replaced content said it.
  const retracted = candidates.length
    ? (
        await tx.query<{ id: string; expired_at: Date; old_expired_at: Date | null; old_invalid_at: Date | null; old_invalidated_by: string | null }>(
          `UPDATE fact f SET expired_at = COALESCE(f.expired_at, now()), invalid_at = NULL, invalidated_by = NULL,
                  updated_at = now(), properties = f.properties || $3::jsonb
             FROM fact old
            WHERE old.id = f.id AND f.id = ANY($2::uuid[]) AND f.forgotten_at IS NULL
              AND (f.expired_at IS NULL OR (f.id = ANY($5::uuid[]) AND f.invalidated_by IS NOT NULL))
              AND NOT EXISTS (SELECT 1 FROM fact_episode fe JOIN episode e ON e.id = fe.episode_id
                               WHERE fe.fact_id = f.id AND fe.episode_id <> $1 AND fe.relation = ANY($4::text[]) AND e.forgotten_at IS NULL)
            RETURNING f.id, f.expired_at, old.expired_at AS old_expired_at, old.invalid_at AS old_invalid_at, old.invalidated_by AS old_invalidated_by`,
          [episodeId, candidates, marker, SUPPORTS, endedNow],
        )
      ).rows
    : [];
  const audit: AuditEntry[] = retracted.map((f) => ({
    action: 'fact.expired',
    targetType: 'fact',
    targetId: f.id,
    // A world-time end (set by this commit's planning, or stated) is kept here: a retracted fact has none.
    before: { expired_at: f.old_expired_at?.toISOString() ?? null, invalid_at: f.old_invalid_at?.toISOString() ?? null, invalidated_by: f.old_invalidated_by },
    after: { expired_at: f.expired_at.toISOString(), invalid_at: null, reason: RETRACTED_REASON, episode_id: episodeId, replaced_version: replaced },
  }));
  audit.push(...(await closeMootConflicts(tx, episodeId, retracted.map((f) => f.id))));
  await tx.query(
    `UPDATE episode_version SET settled_at = now(), facts_expired = CASE WHEN version = $2 THEN $3 ELSE facts_expired END
      WHERE episode_id = $1 AND settled_at IS NULL`,
    [episodeId, replaced, retracted.length],
  );
  return audit;
}

/** Conflicts this episode opened against a fact now retracted: the held-back statement is believed, the item resolved. */
async function closeMootConflicts(tx: PoolClient, episodeId: string, retracted: string[]): Promise<AuditEntry[]> {
  if (retracted.length === 0) return [];
  const { rows } = await tx.query<{ id: string; status: string; fact_ids: string[] }>(
    `SELECT id, status, fact_ids::text[] AS fact_ids FROM review_item
      WHERE episode_id = $1 AND kind = 'conflict' AND status IN ('open', 'escalated') AND fact_ids[1] = ANY($2::uuid[])
      ORDER BY id FOR UPDATE`,
    [episodeId, retracted],
  );
  const audit: AuditEntry[] = [];
  for (const item of rows) {
    const held = item.fact_ids[1];
    await tx.query(
      `UPDATE fact SET expired_at = NULL, properties = (properties - 'pending_review') || $2::jsonb, updated_at = now()
        WHERE id = $1 AND properties ? 'pending_review' AND invalid_at IS NULL`,
      [held, JSON.stringify({ kept_by_update: episodeId })],
    );
    const resolution = { reason: MOOT_REASON, fact_id: held, retracted_fact_id: item.fact_ids[0] };
    await tx.query(
      `UPDATE review_item SET status = 'resolved', resolution = $2, resolved_at = now(), decided_at = now(), decided_by = $3, updated_at = now() WHERE id = $1`,
      [item.id, JSON.stringify(resolution), ACTOR],
    );
    audit.push({ action: 'review.closed', targetType: 'review_item', targetId: item.id, before: { status: item.status }, after: { status: 'resolved', resolution } });
  }
  return audit;
}

interface VersionRow {
  version: number;
  content: string;
  metadata: Record<string, unknown>;
  recorded_at: Date;
  replaced_at: Date;
  replaced_by_actor: string;
  replaced_by_request: string | null;
  workflow_id: string | null;
  supported_fact_ids: string[];
  settled_at: Date | null;
  facts_expired: number;
}

/** Every version of an episode, oldest first, the current one last. Null: no such episode for this requester. */
export async function listVersions(deps: Pick<Deps, 'pool'>, episodeId: string, who: Pick<Requester, 'namespace'>): Promise<VersionView[] | null> {
  const { rows: eps } = await deps.pool.query<{ namespace: string; content: string; metadata: Record<string, unknown>; recorded_at: Date; workflow_id: string }>(
    'SELECT namespace, content, metadata, recorded_at, workflow_id FROM episode WHERE id = $1',
    [episodeId],
  );
  const ep = eps[0];
  if (!ep || (who.namespace !== null && who.namespace !== ep.namespace)) return null;
  const { rows } = await deps.pool.query<VersionRow>(
    `SELECT version, content, metadata, recorded_at, replaced_at, replaced_by_actor, replaced_by_request, workflow_id,
            supported_fact_ids::text[] AS supported_fact_ids, settled_at, facts_expired
       FROM episode_version WHERE episode_id = $1 ORDER BY version`,
    [episodeId],
  );
  const past = rows.map(
    (r): VersionView => ({
      version: r.version,
      current: false,
      content: r.content,
      metadata: r.metadata,
      recorded_at: r.recorded_at.toISOString(),
      replaced_at: r.replaced_at.toISOString(),
      replaced_by: { actor: r.replaced_by_actor, request_id: r.replaced_by_request },
      workflow_id: r.workflow_id,
      supported_fact_ids: r.supported_fact_ids,
      settled: r.settled_at !== null,
      facts_expired: r.facts_expired,
    }),
  );
  const last = rows[rows.length - 1];
  return [
    ...past,
    {
      version: (last?.version ?? 0) + 1,
      current: true,
      content: ep.content,
      metadata: ep.metadata,
      recorded_at: (last?.replaced_at ?? ep.recorded_at).toISOString(),
      replaced_at: null,
      replaced_by: null,
      workflow_id: ep.workflow_id,
      supported_fact_ids: [],
      settled: null,
      facts_expired: 0,
    },
  ];
}
