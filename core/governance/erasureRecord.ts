import { writeAudit } from '../audit/auditLog.js';
import { withTransaction, type Pool, type Queryable } from '../db/pool.js';
import { ERASURE_KINDS, eraseWorkflowId, type ErasureCounts, type ErasureStep, type ErasureSummary, type ErasureTarget, type FinishErasureInput } from './contracts.js';
import { sha256Hex } from './userHash.js';

/** The stored progress of one erasure, as `GET /v1/erasures/:id` shows it. */
export interface ErasureView {
  id: string;
  namespace: string;
  user_hash: string;
  status: 'running' | 'completed' | 'failed';
  step: ErasureStep | null;
  counts: Record<string, number>;
  batches: number;
  requested_by: string | null;
  started_at: string;
  finished_at: string | null;
  error: string | null;
}

interface ErasureRow {
  namespace: string;
  user_hash: string;
  status: ErasureView['status'];
  step: ErasureStep | null;
  counts: ErasureCounts;
  batches: number;
  requested_by: string | null;
  started_at: Date;
  finished_at: Date | null;
  error: string | null;
}

/** Every kind with a number (0 when nothing of that kind was removed yet). */
function fullCounts(counts: ErasureCounts): Record<string, number> {
  return Object.fromEntries(ERASURE_KINDS.map((k) => [k, Number(counts[k] ?? 0)]));
}

function view(id: string, row: ErasureRow): ErasureView {
  return {
    id,
    namespace: row.namespace,
    user_hash: row.user_hash,
    status: row.status,
    step: row.step,
    counts: fullCounts(row.counts),
    batches: row.batches,
    requested_by: row.requested_by,
    started_at: row.started_at.toISOString(),
    finished_at: row.finished_at ? row.finished_at.toISOString() : null,
    error: row.error,
  };
}

const COLUMNS = 'namespace, user_hash, status, step, counts, batches, requested_by, started_at, finished_at, error';

/** The erasure a workflow id names (null: none). Only the id's hash is stored, so the lookup hashes it. */
export async function loadErasure(db: Queryable, workflowId: string): Promise<ErasureView | null> {
  const { rows } = await db.query<ErasureRow>(`SELECT ${COLUMNS} FROM erasure WHERE workflow_id_hash = $1`, [sha256Hex(workflowId)]);
  return rows[0] ? view(workflowId, rows[0]) : null;
}

/**
 * Marks the erasure running (creating its row), keeping the counts of an
 * earlier run: a user erased again after new writes adds to the report.
 * Idempotent: the workflow calls it once per run, retries change nothing more.
 */
export async function beginErasure(db: Queryable, target: ErasureTarget, requestedBy: string | null): Promise<ErasureSummary> {
  const id = eraseWorkflowId(target.namespace, target.userId);
  const { rows } = await db.query<{ status: ErasureSummary['status']; counts: ErasureCounts }>(
    `INSERT INTO erasure (namespace, user_hash, workflow_id_hash, requested_by, step)
     VALUES ($1, $2, $3, $4, 'halt')
     ON CONFLICT (namespace, user_hash) DO UPDATE
        SET status = 'running', finished_at = NULL, error = NULL, updated_at = now(),
            requested_by = coalesce(EXCLUDED.requested_by, erasure.requested_by),
            step = CASE WHEN erasure.status = 'running' THEN erasure.step ELSE 'halt' END
     RETURNING status, counts`,
    [target.namespace, sha256Hex(target.userId), sha256Hex(id), requestedBy],
  );
  return rows[0];
}

/** Adds one batch's counts to the erasure's report (inside the batch's transaction, so a batch counts once). */
export async function addErasureCounts(db: Queryable, target: ErasureTarget, step: ErasureStep, counts: ErasureCounts): Promise<void> {
  await db.query(
    `UPDATE erasure e SET counts = (
              SELECT coalesce(jsonb_object_agg(k, coalesce((e.counts->>k)::int, 0) + coalesce((d.value)::int, 0)), '{}'::jsonb)
                FROM (SELECT jsonb_object_keys(e.counts || $4::jsonb) AS k) keys
                LEFT JOIN jsonb_each_text($4::jsonb) d ON d.key = keys.k),
            batches = batches + 1, step = $3, updated_at = now()
      WHERE namespace = $1 AND user_hash = $2`,
    [target.namespace, sha256Hex(target.userId), step, JSON.stringify(counts)],
  );
}

/**
 * Completes the erasure and writes the one audit row that remains about the
 * user: no content, the user id only as its hash. Idempotent: a retry (or a
 * replayed run) finds the erasure completed and writes nothing more.
 */
export async function finishErasure(
  deps: { pool: Pool },
  input: FinishErasureInput,
  cause: { workflowId: string | null; runId: string | null },
): Promise<ErasureSummary> {
  return withTransaction(deps.pool, async (tx) => {
    const userHash = sha256Hex(input.userId);
    const { rows } = await tx.query<{ counts: ErasureCounts; was: string }>(
      `UPDATE erasure e SET status = 'completed', step = NULL, finished_at = now(), updated_at = now()
         FROM erasure old
        WHERE e.namespace = $1 AND e.user_hash = $2 AND old.namespace = e.namespace AND old.user_hash = e.user_hash
        RETURNING e.counts, old.status AS was`,
      [input.namespace, userHash],
    );
    const row = rows[0];
    if (!row) throw new Error('erasure row missing: beginErasure must run first');
    if (row.was !== 'completed') {
      await writeAudit(
        tx,
        { namespace: input.namespace, actor: input.requestedBy ?? 'system:erasure', requestId: input.requestId ?? null, workflowId: cause.workflowId, runId: cause.runId },
        [{ action: 'user.erased', targetType: 'user', targetId: `sha256:${userHash}` }],
      );
    }
    return { status: 'completed', counts: row.counts };
  });
}

/** Records why an erasure stopped (its workflow failed); a new request starts it again. */
export async function failErasure(db: Queryable, target: ErasureTarget, error: string): Promise<void> {
  await db.query(`UPDATE erasure SET status = 'failed', error = $3, updated_at = now() WHERE namespace = $1 AND user_hash = $2 AND status = 'running'`, [
    target.namespace,
    sha256Hex(target.userId),
    error.slice(0, 2000),
  ]);
}

/** Whether the namespace still holds rows of the user (a completed erasure with nothing new need not run again). */
export async function userHasData(db: Queryable, target: ErasureTarget): Promise<boolean> {
  const { rows } = await db.query<{ any: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM episode WHERE namespace = $1 AND user_id = $2)
         OR EXISTS (SELECT 1 FROM fact WHERE namespace = $1 AND scope_user = $2)
         OR EXISTS (SELECT 1 FROM entity WHERE namespace = $1 AND scope_user = $2)
         OR EXISTS (SELECT 1 FROM work_session WHERE namespace = $1 AND user_id = $2)
         OR EXISTS (SELECT 1 FROM persistent_task WHERE namespace = $1 AND user_id = $2) AS any`,
    [target.namespace, target.userId],
  );
  return rows[0].any;
}
