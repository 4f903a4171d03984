import type { Queryable } from '../db/pool.js';

/** What caused a batch of changes: who did it and the request or workflow run behind it. */
export interface AuditCause {
  namespace: string;
  actor: string;
  requestId?: string | null;
  workflowId?: string | null;
  runId?: string | null;
  episodeId?: string | null;
}

export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string | null;
  before?: unknown;
  after?: unknown;
}

/** Every mutation's audit rows, written in one statement (inside the caller's transaction when given one). */
export async function writeAudit(db: Queryable, cause: AuditCause, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db.query(
    `INSERT INTO audit_log (namespace, actor, action, target_type, target_id, before, after, request_id, workflow_id, run_id, episode_id)
     SELECT $1, $2, r.action, r.target_type, r.target_id, r.before, r.after, $3, $4, $5, $6
       FROM jsonb_to_recordset($7::jsonb) AS r(action text, target_type text, target_id text, before jsonb, after jsonb)`,
    [
      cause.namespace,
      cause.actor,
      cause.requestId ?? null,
      cause.workflowId ?? null,
      cause.runId ?? null,
      cause.episodeId ?? null,
      JSON.stringify(
        entries.map((e) => ({ action: e.action, target_type: e.targetType, target_id: e.targetId, before: e.before ?? null, after: e.after ?? null })),
      ),
    ],
  );
}
