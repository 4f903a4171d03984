import type { Queryable } from '../db/pool.js';
import { SqlParams } from '../retrieval/sql.js';

export interface AuditFilter {
  namespace: string;
  targetType?: string;
  targetId?: string;
  actor?: string;
  since?: Date;
  /** The id of the last entry of the previous page (entries come newest first). */
  before?: bigint;
  limit: number;
}

export interface AuditEntryView {
  id: string;
  namespace: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string | null;
  before: unknown;
  after: unknown;
  request_id: string | null;
  workflow_id: string | null;
  run_id: string | null;
  episode_id: string | null;
  created_at: string;
}

interface AuditRow extends Omit<AuditEntryView, 'created_at'> {
  created_at: Date;
}

/** One page of the audit log, newest first; `next_cursor` continues it (null: no more). */
export async function listAudit(db: Queryable, filter: AuditFilter): Promise<{ entries: AuditEntryView[]; next_cursor: string | null }> {
  const p = new SqlParams();
  const where = [`namespace = ${p.add(filter.namespace)}`];
  if (filter.targetType !== undefined) where.push(`target_type = ${p.add(filter.targetType)}`);
  if (filter.targetId !== undefined) where.push(`target_id = ${p.add(filter.targetId)}`);
  if (filter.actor !== undefined) where.push(`actor = ${p.add(filter.actor)}`);
  if (filter.since !== undefined) where.push(`created_at >= ${p.add(filter.since)}::timestamptz`);
  if (filter.before !== undefined) where.push(`id < ${p.add(filter.before.toString())}::bigint`);
  // id order (numeric: a.id, not the text column of the same name) is insertion order, the one order a keyset resumes exactly.
  const { rows } = await db.query<AuditRow>(
    `SELECT id::text AS id, namespace, actor, action, target_type, target_id, before, after, request_id, workflow_id, run_id, episode_id, created_at
       FROM audit_log a WHERE ${where.join(' AND ')} ORDER BY a.id DESC LIMIT ${p.add(filter.limit + 1)}`,
    p.values,
  );
  const page = rows.slice(0, filter.limit);
  return {
    entries: page.map((r) => ({ ...r, created_at: r.created_at.toISOString() })),
    next_cursor: rows.length > filter.limit ? page[page.length - 1].id : null,
  };
}
