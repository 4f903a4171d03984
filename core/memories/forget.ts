import { withTransaction, type PoolClient } from '../db/pool.js';
import { writeAudit, type AuditEntry } from '../audit/auditLog.js';
import type { Deps } from '../deps.js';
import { restartExtraction, runsStagesLocally } from '../ingest/startExtraction.js';

/** Who asks for a change: the audit actor and cause, and the namespace the key may touch (null: every one). */
export interface Requester {
  actor: string;
  requestId: string;
  namespace: string | null;
}

export interface ForgetResult {
  id: string;
  forgotten_at: string;
  facts_forgotten: number;
  entities_forgotten: number;
}

export interface RestoreResult {
  id: string;
  restored: boolean;
  facts_restored: number;
  entities_restored: number;
  /** Entities a live namesake replaced while they were forgotten: left forgotten rather than duplicated. */
  entities_left_forgotten: string[];
}

/**
 * Stored in `properties` of every fact and entity a forget took down, so that
 * restore undoes exactly that forget and nothing else (no schema change needed).
 */
export const FORGOTTEN_BY = 'forgotten_by_episode';

/**
 * Why an episode ended `skipped` because it was forgotten (in `episode.error`).
 * Before: forgotten while pending or failed (here, or by beginExtraction when
 * the forget came first); during: forgotten after extraction began (written by
 * the commit stage and failExtraction). Restore extracts exactly these again.
 */
export const FORGOTTEN_BEFORE_EXTRACTION = 'forgotten before extraction';
export const FORGOTTEN_DURING_EXTRACTION = 'forgotten during extraction';
export const SKIPPED_BY_FORGET = [FORGOTTEN_BEFORE_EXTRACTION, FORGOTTEN_DURING_EXTRACTION];

/** Provenance relations that mean "this episode supports the fact" ('invalidated' does not). */
const SUPPORTS = `('created', 'confirmed', 'refined')`;


interface EpisodeRow {
  id: string;
  namespace: string;
  forgotten_at: Date | null;
}

/**
 * Locks the episode (null when missing or in a namespace the requester may not
 * touch) and serializes forget/restore within its namespace, so two episodes
 * sharing a fact cannot each see the other as live support and both keep it.
 */
async function lockEpisode(tx: PoolClient, id: string, who: Requester): Promise<EpisodeRow | null> {
  const { rows } = await tx.query<EpisodeRow>('SELECT id, namespace, forgotten_at FROM episode WHERE id = $1', [id]);
  const found = rows[0];
  if (!found || (who.namespace !== null && who.namespace !== found.namespace)) return null;
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('forget:' || $1))`, [found.namespace]);
  const locked = await tx.query<EpisodeRow>('SELECT id, namespace, forgotten_at FROM episode WHERE id = $1 FOR UPDATE', [id]);
  return locked.rows[0] ?? null;
}

async function markedCount(tx: PoolClient, table: 'fact' | 'entity', episode: EpisodeRow): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE namespace = $1 AND properties->>'${FORGOTTEN_BY}' = $2 AND forgotten_at IS NOT NULL`,
    [episode.namespace, episode.id],
  );
  return rows[0].n;
}

/**
 * Soft-deletes an episode, the facts no other live episode supports and the
 * entities left with neither a live episode nor a live fact. Idempotent: a
 * second call changes nothing and answers the same. Null: no such episode.
 */
export async function forgetEpisode(deps: Pick<Deps, 'pool'>, episodeId: string, who: Requester): Promise<ForgetResult | null> {
  return withTransaction(deps.pool, async (tx) => {
    const episode = await lockEpisode(tx, episodeId, who);
    if (!episode) return null;
    if (episode.forgotten_at) {
      return {
        id: episode.id,
        forgotten_at: episode.forgotten_at.toISOString(),
        facts_forgotten: await markedCount(tx, 'fact', episode),
        entities_forgotten: await markedCount(tx, 'entity', episode),
      };
    }
    // Not yet extracting: nothing will be learnt from it, so it ends here, skipped with the reason (the
    // workflow, if it starts later, finds nothing to claim). An extracting one is settled by its commit.
    const { rows: ep } = await tx.query<{ forgotten_at: Date; status: string; old_status: string }>(
      `UPDATE episode e SET forgotten_at = now(), updated_at = now(),
              status = CASE WHEN e.status IN ('pending', 'failed') THEN 'skipped' ELSE e.status END,
              error = CASE WHEN e.status IN ('pending', 'failed') THEN $2 ELSE e.error END
         FROM episode old WHERE old.id = e.id AND e.id = $1
       RETURNING e.forgotten_at, e.status, old.status AS old_status`,
      [episode.id, FORGOTTEN_BEFORE_EXTRACTION],
    );
    const forgottenAt = ep[0].forgotten_at;
    const statusChange = ep[0].status === ep[0].old_status ? {} : { status: ep[0].status, error: FORGOTTEN_BEFORE_EXTRACTION };
    const marker = JSON.stringify({ [FORGOTTEN_BY]: episode.id });

    const facts = await tx.query<{ id: string; subject_id: string; object_id: string | null }>(
      `UPDATE fact f SET forgotten_at = $3, properties = f.properties || $4::jsonb, updated_at = now()
        WHERE f.namespace = $2 AND f.forgotten_at IS NULL
          AND EXISTS (SELECT 1 FROM fact_episode fe WHERE fe.fact_id = f.id AND fe.episode_id = $1 AND fe.relation IN ${SUPPORTS})
          AND NOT EXISTS (SELECT 1 FROM fact_episode fe JOIN episode e ON e.id = fe.episode_id
                           WHERE fe.fact_id = f.id AND fe.relation IN ${SUPPORTS} AND e.forgotten_at IS NULL)
        RETURNING f.id, f.subject_id, f.object_id`,
      [episode.id, episode.namespace, forgottenAt, marker],
    );
    // Candidates: what the episode mentioned, and the ends of the facts just forgotten.
    const ends = facts.rows.flatMap((f) => (f.object_id ? [f.subject_id, f.object_id] : [f.subject_id]));
    const entities = await tx.query<{ id: string }>(
      `UPDATE entity n SET forgotten_at = $3, properties = n.properties || $4::jsonb, updated_at = now()
        WHERE n.namespace = $2 AND n.forgotten_at IS NULL
          AND (n.id = ANY($5::uuid[]) OR EXISTS (SELECT 1 FROM entity_episode ee WHERE ee.entity_id = n.id AND ee.episode_id = $1))
          AND NOT EXISTS (SELECT 1 FROM entity_episode ee JOIN episode e ON e.id = ee.episode_id
                           WHERE ee.entity_id = n.id AND e.forgotten_at IS NULL)
          AND NOT EXISTS (SELECT 1 FROM fact f WHERE (f.subject_id = n.id OR f.object_id = n.id) AND f.forgotten_at IS NULL)
        RETURNING n.id`,
      [episode.id, episode.namespace, forgottenAt, marker, ends],
    );

    const after = { forgotten_at: forgottenAt.toISOString(), [FORGOTTEN_BY]: episode.id };
    const before = { forgotten_at: null };
    await writeAudit(tx, { namespace: episode.namespace, actor: who.actor, requestId: who.requestId, episodeId: episode.id }, [
      {
        action: 'episode.forgotten',
        targetType: 'episode',
        targetId: episode.id,
        before: statusChange.status ? { ...before, status: ep[0].old_status } : before,
        after: { forgotten_at: after.forgotten_at, ...statusChange },
      },
      ...facts.rows.map((f): AuditEntry => ({ action: 'fact.forgotten', targetType: 'fact', targetId: f.id, before, after })),
      ...entities.rows.map((n): AuditEntry => ({ action: 'entity.forgotten', targetType: 'entity', targetId: n.id, before, after })),
    ]);
    return { id: episode.id, forgotten_at: after.forgotten_at, facts_forgotten: facts.rowCount ?? 0, entities_forgotten: entities.rowCount ?? 0 };
  });
}

/**
 * Undoes one forget: the episode and exactly the facts and entities it took
 * down. An episode the forget kept from being extracted is extracted now.
 * Null: no such episode.
 */
export async function restoreEpisode(
  deps: Pick<Deps, 'pool' | 'temporal' | 'config' | 'logger'>,
  episodeId: string,
  who: Requester,
): Promise<RestoreResult | null> {
  const restored = await restoreInTransaction(deps, episodeId, who);
  if (!restored) return null;
  if (restored.reextract) {
    try {
      await restartExtraction(deps.temporal, { episodeId, localStages: runsStagesLocally(deps.config) });
    } catch (err) {
      // The episode is pending again and committed: reconcile starts it within a minute.
      deps.logger.warn({ err, episodeId }, 'could not restart extraction of a restored memory; reconcile will');
    }
  }
  return restored.result;
}

async function restoreInTransaction(
  deps: Pick<Deps, 'pool'>,
  episodeId: string,
  who: Requester,
): Promise<{ result: RestoreResult; reextract: boolean } | null> {
  return withTransaction(deps.pool, async (tx) => {
    const episode = await lockEpisode(tx, episodeId, who);
    if (!episode) return null;
    if (!episode.forgotten_at) {
      return { result: { id: episode.id, restored: false, facts_restored: 0, entities_restored: 0, entities_left_forgotten: [] }, reextract: false };
    }
    const params = [episode.namespace, episode.id];
    // A new live entity of the same name may exist by now: the unique live-name key forbids a second one.
    const entities = await tx.query<{ id: string; forgotten_at: Date }>(
      `UPDATE entity n SET forgotten_at = NULL, properties = n.properties - '${FORGOTTEN_BY}', updated_at = now()
         FROM entity old
        WHERE old.id = n.id AND n.namespace = $1 AND n.properties->>'${FORGOTTEN_BY}' = $2 AND n.forgotten_at IS NOT NULL
          AND (n.merged_into IS NOT NULL OR NOT EXISTS (
                SELECT 1 FROM entity live WHERE live.namespace = n.namespace AND live.scope_user = n.scope_user AND live.type = n.type
                   AND live.name_key = n.name_key AND live.merged_into IS NULL AND live.forgotten_at IS NULL))
        RETURNING n.id, old.forgotten_at`,
      params,
    );
    const left = await tx.query<{ id: string }>(
      `SELECT id FROM entity WHERE namespace = $1 AND properties->>'${FORGOTTEN_BY}' = $2 AND forgotten_at IS NOT NULL ORDER BY id`,
      params,
    );
    const facts = await tx.query<{ id: string; forgotten_at: Date }>(
      `UPDATE fact f SET forgotten_at = NULL, properties = f.properties - '${FORGOTTEN_BY}', updated_at = now()
         FROM fact old
        WHERE old.id = f.id AND f.namespace = $1 AND f.properties->>'${FORGOTTEN_BY}' = $2 AND f.forgotten_at IS NOT NULL
        RETURNING f.id, old.forgotten_at`,
      params,
    );
    const { rows: ep } = await tx.query<{ reextract: boolean }>(
      `UPDATE episode SET forgotten_at = NULL, updated_at = now(),
              status = CASE WHEN status = 'skipped' AND error = ANY($2::text[]) THEN 'pending' ELSE status END,
              error = CASE WHEN status = 'skipped' AND error = ANY($2::text[]) THEN NULL ELSE error END
        WHERE id = $1
       RETURNING status = 'pending' AS reextract`,
      [episode.id, SKIPPED_BY_FORGET],
    );
    const reextract = ep[0].reextract;

    const restored = (action: string, targetType: AuditEntry['targetType'], id: string, at: Date): AuditEntry => ({
      action,
      targetType,
      targetId: id,
      before: { forgotten_at: at.toISOString() },
      after: { forgotten_at: null },
    });
    await writeAudit(tx, { namespace: episode.namespace, actor: who.actor, requestId: who.requestId, episodeId: episode.id }, [
      reextract
        ? { ...restored('episode.restored', 'episode', episode.id, episode.forgotten_at), after: { forgotten_at: null, status: 'pending' } }
        : restored('episode.restored', 'episode', episode.id, episode.forgotten_at),
      ...facts.rows.map((f) => restored('fact.restored', 'fact', f.id, f.forgotten_at)),
      ...entities.rows.map((n) => restored('entity.restored', 'entity', n.id, n.forgotten_at)),
    ]);
    return {
      result: {
        id: episode.id,
        restored: true,
        facts_restored: facts.rowCount ?? 0,
        entities_restored: entities.rowCount ?? 0,
        entities_left_forgotten: left.rows.map((r) => r.id),
      },
      reextract,
    };
  });
}
