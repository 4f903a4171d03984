import { WorkflowNotFoundError } from '@temporalio/client';
import { withTransaction, type PoolClient } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { withDeadline } from '../temporal/client.js';
import type { EraseBatchResult, ErasureCounts, ErasureStep, ErasureTarget } from './contracts.js';
import { addErasureCounts } from './erasureRecord.js';

type StepDeps = Pick<Deps, 'pool' | 'temporal'>;

/** Provenance relations that mean "this episode supports the fact" (as in core/memories/forget.ts). */
const SUPPORTS = `('created', 'confirmed', 'refined')`;

/**
 * Ends a workflow the erased data belongs to (an extraction, a task, a
 * session, a review). Terminate, not cancel: nothing of the user may be
 * written by a cleanup path afterwards. Already closed or never started: fine.
 */
async function terminate(deps: StepDeps, workflowId: string | null): Promise<void> {
  if (!workflowId) return;
  try {
    await withDeadline(deps.temporal, 10_000, () => deps.temporal.client.workflow.getHandle(workflowId).terminate('user erased'));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return;
    throw err; // Temporal unreachable: the activity retries, the batch is applied later
  }
}

async function terminateAll(deps: StepDeps, workflowIds: Array<string | null>): Promise<void> {
  for (const id of new Set(workflowIds)) await terminate(deps, id);
}

/** Audit rows whose target is a removed row: deleted (their before/after held the row's content). */
async function deleteAuditOf(tx: PoolClient, namespace: string, targetType: string, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const { rowCount } = await tx.query(`DELETE FROM audit_log WHERE namespace = $1 AND target_type = $2 AND target_id = ANY($3::text[])`, [namespace, targetType, ids]);
  return rowCount ?? 0;
}

/** Review items about removed rows, and their waiting workflows' ids (terminated by the caller). */
async function reviewItemsTouching(tx: PoolClient, namespace: string, ids: { facts?: string[]; entities?: string[]; episodes?: string[] }) {
  const { rows } = await tx.query<{ id: string; workflow_id: string | null }>(
    `SELECT id, workflow_id FROM review_item
      WHERE namespace = $1 AND (fact_ids && $2::uuid[] OR entity_ids && $3::uuid[] OR episode_id = ANY($4::uuid[]))`,
    [namespace, ids.facts ?? [], ids.entities ?? [], ids.episodes ?? []],
  );
  return rows;
}

async function deleteReviewItems(tx: PoolClient, namespace: string, ids: string[]): Promise<ErasureCounts> {
  if (!ids.length) return {};
  const { rowCount } = await tx.query('DELETE FROM review_item WHERE namespace = $1 AND id = ANY($2::uuid[])', [namespace, ids]);
  return { review_items: rowCount ?? 0, audit_rows_deleted: await deleteAuditOf(tx, namespace, 'review_item', ids) };
}

function sum(...parts: ErasureCounts[]): ErasureCounts {
  const out: ErasureCounts = {};
  for (const part of parts) {
    for (const [k, v] of Object.entries(part) as Array<[keyof ErasureCounts, number]>) if (v) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

/** One batch of one step, in one transaction with its share of the report. */
type StepBatch = (deps: StepDeps, target: ErasureTarget, limit: number) => Promise<{ done: boolean; counts: ErasureCounts; after?: () => Promise<void> }>;

/** In-flight extractions of the user: stopped, and marked so a commit already under way learns nothing. */
const halt: StepBatch = async (deps, { namespace, userId }, limit) => {
  const { rows } = await deps.pool.query<{ id: string; workflow_id: string }>(
    `SELECT id, workflow_id FROM episode WHERE namespace = $1 AND user_id = $2 AND status IN ('pending', 'extracting') ORDER BY id LIMIT $3`,
    [namespace, userId, limit],
  );
  await terminateAll(deps, rows.map((r) => r.workflow_id));
  return withTransaction(deps.pool, async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE episode SET status = 'skipped', error = 'erasure', forgotten_at = coalesce(forgotten_at, now()), updated_at = now()
        WHERE id = ANY($1::uuid[]) AND status IN ('pending', 'extracting')`,
      [rows.map((r) => r.id)],
    );
    const counts = { extractions_stopped: rowCount ?? 0 };
    await addErasureCounts(tx, { namespace, userId }, 'halt', counts);
    return { done: rows.length < limit, counts };
  });
};

/** Persistent tasks of the user, with their bursts, sessions and budget reviews; their workflows are ended first. */
const tasks: StepBatch = async (deps, { namespace, userId }, limit) => {
  const { rows } = await deps.pool.query<{ id: string; workflow_id: string }>(
    'SELECT id, workflow_id FROM persistent_task WHERE namespace = $1 AND user_id = $2 ORDER BY id LIMIT $3',
    [namespace, userId, limit],
  );
  const ids = rows.map((r) => r.id);
  const related = await deps.pool.query<{ kind: string; id: string; workflow_id: string | null }>(
    `SELECT 'session' AS kind, id::text, CASE WHEN status = 'active' THEN workflow_id END AS workflow_id FROM work_session WHERE namespace = $1 AND persistent_task_id = ANY($2::uuid[])
     UNION ALL
     SELECT 'review', id::text, workflow_id FROM review_item WHERE namespace = $1 AND payload->>'task_id' = ANY($2::text[])`,
    [namespace, ids],
  );
  await terminateAll(deps, [...rows.map((r) => r.workflow_id), ...related.rows.map((r) => r.workflow_id)]);
  return withTransaction(deps.pool, async (tx) => {
    const sessionIds = related.rows.filter((r) => r.kind === 'session').map((r) => r.id);
    const reviews = await deleteReviewItems(tx, namespace, related.rows.filter((r) => r.kind === 'review').map((r) => r.id));
    const sessions = await tx.query('DELETE FROM work_session WHERE namespace = $1 AND id = ANY($2::uuid[])', [namespace, sessionIds]);
    const removed = await tx.query('DELETE FROM persistent_task WHERE namespace = $1 AND id = ANY($2::uuid[])', [namespace, ids]);
    const counts = sum(reviews, {
      tasks: removed.rowCount ?? 0,
      sessions: sessions.rowCount ?? 0,
      audit_rows_deleted: (await deleteAuditOf(tx, namespace, 'persistent_task', ids)) + (await deleteAuditOf(tx, namespace, 'work_session', sessionIds)),
    });
    await addErasureCounts(tx, { namespace, userId }, 'tasks', counts);
    return { done: rows.length < limit, counts };
  });
};

/** Working-memory sessions of the user (turns and summaries go with them); a live session workflow is ended. */
const sessions: StepBatch = async (deps, { namespace, userId }, limit) => {
  const { rows } = await deps.pool.query<{ id: string; workflow_id: string | null }>(
    `SELECT id, CASE WHEN status = 'active' THEN workflow_id END AS workflow_id FROM work_session WHERE namespace = $1 AND user_id = $2 ORDER BY id LIMIT $3`,
    [namespace, userId, limit],
  );
  await terminateAll(deps, rows.map((r) => r.workflow_id));
  return withTransaction(deps.pool, async (tx) => {
    const ids = rows.map((r) => r.id);
    const removed = await tx.query('DELETE FROM work_session WHERE namespace = $1 AND id = ANY($2::uuid[])', [namespace, ids]);
    const counts = { sessions: removed.rowCount ?? 0, audit_rows_deleted: await deleteAuditOf(tx, namespace, 'work_session', ids) };
    await addErasureCounts(tx, { namespace, userId }, 'sessions', counts);
    return { done: rows.length < limit, counts };
  });
};

/** Review items about the user's episodes, facts or entities; their waiting workflows are ended. */
const reviews: StepBatch = async (deps, { namespace, userId }, limit) => {
  const { rows } = await deps.pool.query<{ id: string; workflow_id: string | null }>(
    `SELECT r.id, r.workflow_id FROM review_item r
      WHERE r.namespace = $1 AND (
            r.episode_id IN (SELECT id FROM episode WHERE namespace = $1 AND user_id = $2)
         OR EXISTS (SELECT 1 FROM fact f WHERE f.id = ANY(r.fact_ids) AND f.namespace = $1 AND f.scope_user = $2)
         OR EXISTS (SELECT 1 FROM entity n WHERE n.id = ANY(r.entity_ids) AND n.namespace = $1 AND n.scope_user = $2))
      ORDER BY r.id LIMIT $3`,
    [namespace, userId, limit],
  );
  await terminateAll(deps, rows.map((r) => r.workflow_id));
  return withTransaction(deps.pool, async (tx) => {
    const counts = await deleteReviewItems(tx, namespace, rows.map((r) => r.id));
    await addErasureCounts(tx, { namespace, userId }, 'reviews', counts);
    return { done: rows.length < limit, counts };
  });
};

/**
 * Facts of the user: those in the user's scope or supported by the user's
 * episodes. A fact another user's episode also supports stays: only this
 * user's provenance links go, and it moves to that user's scope. The rest are
 * deleted with their review items and audit rows.
 */
function factsStep(step: ErasureStep): StepBatch {
  return async (deps, { namespace, userId }, limit) =>
    withTransaction(deps.pool, async (tx) => {
      const { rows } = await tx.query<{ id: string; heir: string | null }>(
        `WITH candidates AS (
           SELECT id FROM (
             SELECT f.id FROM fact f WHERE f.namespace = $1 AND f.scope_user = $2
             UNION
             SELECT fe.fact_id FROM fact_episode fe JOIN episode e ON e.id = fe.episode_id WHERE e.namespace = $1 AND e.user_id = $2
           ) c ORDER BY id LIMIT $3),
         locked AS (SELECT f.id FROM fact f JOIN candidates c ON c.id = f.id WHERE f.namespace = $1 ORDER BY f.id FOR UPDATE OF f)
         SELECT l.id,
                (SELECT coalesce(e.user_id, '') FROM fact_episode fe JOIN episode e ON e.id = fe.episode_id
                  WHERE fe.fact_id = l.id AND fe.relation IN ${SUPPORTS} AND e.user_id IS DISTINCT FROM $2
                  ORDER BY fe.created_at, e.id LIMIT 1) AS heir
           FROM locked l`,
        [namespace, userId, limit],
      );
      const kept = rows.filter((r) => r.heir !== null);
      const doomed = rows.filter((r) => r.heir === null).map((r) => r.id);
      if (kept.length) {
        await tx.query(
          `DELETE FROM fact_episode fe USING episode e WHERE fe.episode_id = e.id AND e.namespace = $1 AND e.user_id = $2 AND fe.fact_id = ANY($3::uuid[])`,
          [namespace, userId, kept.map((r) => r.id)],
        );
        await tx.query(
          `UPDATE fact f SET scope_user = k.heir, updated_at = now()
             FROM jsonb_to_recordset($3::jsonb) AS k(id uuid, heir text)
            WHERE f.id = k.id AND f.namespace = $1 AND f.scope_user = $2`,
          [namespace, userId, JSON.stringify(kept)],
        );
      }
      const reviewRows = await reviewItemsTouching(tx, namespace, { facts: doomed });
      const removed = await tx.query('DELETE FROM fact WHERE namespace = $1 AND id = ANY($2::uuid[])', [namespace, doomed]);
      const counts = sum(await deleteReviewItems(tx, namespace, reviewRows.map((r) => r.id)), {
        facts: removed.rowCount ?? 0,
        facts_detached: kept.length,
        audit_rows_deleted: await deleteAuditOf(tx, namespace, 'fact', doomed),
      });
      await addErasureCounts(tx, { namespace, userId }, step, counts);
      return { done: rows.length < limit, counts, after: () => terminateAll(deps, reviewRows.map((r) => r.workflow_id)) };
    });
}

/**
 * Entities of the user: in the user's scope or mentioned by the user's
 * episodes. One another user's episode mentions, or a remaining fact (another
 * user's) names, stays: this user's mention links go, it moves to that
 * user's scope (merged into a live namesake already there), and a
 * `user_id` tag naming this user is dropped. The rest are deleted; merged
 * entities first, so deleting a survivor never revives a merged namesake.
 */
function entitiesStep(step: ErasureStep): StepBatch {
  return async (deps, { namespace, userId }, limit) =>
    withTransaction(deps.pool, async (tx) => {
      const { rows } = await tx.query<{ id: string; heir: string | null; type: string; name_key: string }>(
        `WITH candidates AS (
           SELECT n.id FROM entity n
             JOIN (SELECT id FROM entity WHERE namespace = $1 AND scope_user = $2
                   UNION
                   SELECT ee.entity_id FROM entity_episode ee JOIN episode e ON e.id = ee.episode_id WHERE e.namespace = $1 AND e.user_id = $2) c ON c.id = n.id
            ORDER BY (n.merged_into IS NULL), n.id LIMIT $3),
         locked AS (SELECT n.id, n.type, n.name_key FROM entity n JOIN candidates c ON c.id = n.id ORDER BY n.id FOR UPDATE OF n)
         SELECT l.id, l.type, l.name_key,
                coalesce(
                  (SELECT coalesce(e.user_id, '') FROM entity_episode ee JOIN episode e ON e.id = ee.episode_id
                    WHERE ee.entity_id = l.id AND e.user_id IS DISTINCT FROM $2 ORDER BY ee.created_at, e.id LIMIT 1),
                  (SELECT f.scope_user FROM fact f WHERE (f.subject_id = l.id OR f.object_id = l.id) AND f.scope_user <> $2 ORDER BY f.id LIMIT 1),
                  (SELECT m.scope_user FROM entity m WHERE m.merged_into = l.id AND m.scope_user <> $2 ORDER BY m.id LIMIT 1)) AS heir
           FROM locked l`,
        [namespace, userId, limit],
      );
      const kept = rows.filter((r) => r.heir !== null);
      const doomed = rows.filter((r) => r.heir === null).map((r) => r.id);
      for (const k of kept) await detachEntity(tx, namespace, userId, k as { id: string; heir: string; type: string; name_key: string });
      const reviewRows = await reviewItemsTouching(tx, namespace, { entities: doomed });
      await tx.query('DELETE FROM merge_rejection WHERE namespace = $1 AND (entity_a = ANY($2::uuid[]) OR entity_b = ANY($2::uuid[]))', [namespace, doomed]);
      const removed = await tx.query('DELETE FROM entity WHERE namespace = $1 AND id = ANY($2::uuid[])', [namespace, doomed]);
      const counts = sum(await deleteReviewItems(tx, namespace, reviewRows.map((r) => r.id)), {
        entities: removed.rowCount ?? 0,
        entities_detached: kept.length,
        audit_rows_deleted: await deleteAuditOf(tx, namespace, 'entity', doomed),
      });
      await addErasureCounts(tx, { namespace, userId }, step, counts);
      return { done: rows.length < limit, counts, after: () => terminateAll(deps, reviewRows.map((r) => r.workflow_id)) };
    });
}

/** A kept entity loses this user's mentions and tag and moves to its heir's scope (into a live namesake there, if any). */
async function detachEntity(tx: PoolClient, namespace: string, userId: string, k: { id: string; heir: string; type: string; name_key: string }): Promise<void> {
  await tx.query(`DELETE FROM entity_episode ee USING episode e WHERE ee.episode_id = e.id AND e.namespace = $1 AND e.user_id = $2 AND ee.entity_id = $3`, [
    namespace,
    userId,
    k.id,
  ]);
  await tx.query(
    `UPDATE entity SET properties = properties - 'user_id', updated_at = now() WHERE id = $1 AND properties->>'user_id' = $2`,
    [k.id, userId],
  );
  const { rows: namesake } = await tx.query<{ id: string }>(
    `SELECT id FROM entity WHERE namespace = $1 AND scope_user = $2 AND type = $3 AND name_key = $4 AND id <> $5
        AND merged_into IS NULL AND forgotten_at IS NULL FOR UPDATE`,
    [namespace, k.heir, k.type, k.name_key, k.id],
  );
  const into = namesake[0]?.id;
  if (into) {
    // The heir's scope already has this entity: fold this one into it, as an approved merge would.
    await tx.query('UPDATE fact SET subject_id = $2, updated_at = now() WHERE subject_id = $1', [k.id, into]);
    await tx.query('UPDATE fact SET object_id = $2, updated_at = now() WHERE object_id = $1', [k.id, into]);
    await tx.query('UPDATE entity SET merged_into = $2 WHERE merged_into = $1', [k.id, into]);
    await tx.query(
      `INSERT INTO entity_episode (entity_id, episode_id, surface, created_at) SELECT $2, episode_id, surface, created_at FROM entity_episode WHERE entity_id = $1 ON CONFLICT DO NOTHING`,
      [k.id, into],
    );
    await tx.query(`UPDATE entity SET scope_user = $2, merged_into = $3, updated_at = now() WHERE id = $1 AND scope_user = $4`, [k.id, k.heir, into, userId]);
  } else {
    await tx.query(`UPDATE entity SET scope_user = $2, updated_at = now() WHERE id = $1 AND scope_user = $3`, [k.id, k.heir, userId]);
  }
}

/**
 * The user's episodes (passages, stage runs and provenance links go with
 * them). Audit rows they caused about rows that stay lose their content.
 */
const episodes: StepBatch = async (deps, { namespace, userId }, limit) =>
  withTransaction(deps.pool, async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      'SELECT id FROM episode WHERE namespace = $1 AND user_id = $2 ORDER BY id LIMIT $3 FOR UPDATE',
      [namespace, userId, limit],
    );
    const ids = rows.map((r) => r.id);
    const reviewRows = await reviewItemsTouching(tx, namespace, { episodes: ids });
    const reviewCounts = await deleteReviewItems(tx, namespace, reviewRows.map((r) => r.id));
    const deletedAudit = await deleteAuditOf(tx, namespace, 'episode', ids);
    const scrubbed = await tx.query(
      `UPDATE audit_log SET before = NULL, after = NULL, episode_id = NULL WHERE namespace = $1 AND episode_id = ANY($2::uuid[])`,
      [namespace, ids],
    );
    await tx.query('DELETE FROM session_summary WHERE namespace = $1 AND episode_id = ANY($2::uuid[])', [namespace, ids]);
    const removed = await tx.query('DELETE FROM episode WHERE namespace = $1 AND id = ANY($2::uuid[])', [namespace, ids]);
    const counts = sum(reviewCounts, { episodes: removed.rowCount ?? 0, audit_rows_deleted: deletedAudit, audit_rows_scrubbed: scrubbed.rowCount ?? 0 });
    await addErasureCounts(tx, { namespace, userId }, 'episodes', counts);
    return { done: rows.length < limit, counts, after: () => terminateAll(deps, reviewRows.map((r) => r.workflow_id)) };
  });

/** Audit rows whose target is the user itself (not the final `user.erased` row, which names only a hash). */
const audit: StepBatch = async (deps, { namespace, userId }, limit) =>
  withTransaction(deps.pool, async (tx) => {
    const { rowCount } = await tx.query(
      `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE namespace = $1 AND target_type = 'user' AND target_id = $2 LIMIT $3)`,
      [namespace, userId, limit],
    );
    const counts = { audit_rows_deleted: rowCount ?? 0 };
    await addErasureCounts(tx, { namespace, userId }, 'audit', counts);
    return { done: (rowCount ?? 0) < limit, counts };
  });

const STEPS: Record<ErasureStep, StepBatch> = {
  halt,
  tasks,
  sessions,
  reviews,
  facts: factsStep('facts'),
  entities: entitiesStep('entities'),
  episodes,
  facts_sweep: factsStep('facts_sweep'),
  entities_sweep: entitiesStep('entities_sweep'),
  audit,
};

/**
 * One batch of one erasure step. Idempotent: every step selects what is left
 * of the user, so a retried batch finds what its first attempt removed gone
 * and counts nothing twice.
 */
export async function eraseBatch(deps: StepDeps, target: ErasureTarget, step: ErasureStep, limit: number): Promise<EraseBatchResult> {
  const { done, counts, after } = await STEPS[step](deps, target, limit);
  if (after) await after();
  return { done, counts };
}
