import { createHash } from 'node:crypto';
import type { Queryable } from '../db/pool.js';
import { dreamReportSchema, type DreamReport } from './contracts.js';
import { emptyReport } from './report.js';

/**
 * A stable run id for a workflow id: a scheduled run (`dream-<time>`) gets the
 * same one on every attempt, so creating its row is idempotent. UUID-shaped
 * (version 5 layout over SHA-1, as RFC 9562 names derive ids).
 */
export function runIdForWorkflow(workflowId: string): string {
  const hash = createHash('sha1').update(`mnemo-dream:${workflowId}`).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export type DreamRunStatus = 'running' | 'completed' | 'failed';

export interface DreamRunRow {
  id: string;
  namespace: string | null;
  status: DreamRunStatus;
  workflow_id: string;
  requested_by: string | null;
  started_at: Date;
  finished_at: Date | null;
  report: Record<string, unknown>;
  error: string | null;
}

/** The report part of the stored JSON (without the batch checkpoint); an empty report before the first batch. */
export function storedReport(json: unknown): DreamReport {
  const parsed = dreamReportSchema.safeParse(json);
  return parsed.success ? parsed.data : emptyReport();
}

/** Creates the run's row unless it exists (the API creates it first for on-demand runs). */
export async function createRunRow(
  db: Queryable,
  run: { id: string; namespace: string | null; workflowId: string; requestedBy: string | null },
): Promise<DreamRunRow> {
  await db.query(
    `INSERT INTO dream_run (id, namespace, workflow_id, requested_by, report) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO NOTHING`,
    [run.id, run.namespace, run.workflowId, run.requestedBy, JSON.stringify(emptyReport())],
  );
  const row = await loadRun(db, run.id);
  if (!row) throw new Error(`dream run ${run.id} vanished right after its creation`);
  return row;
}

export async function loadRun(db: Queryable, id: string, forUpdate = false): Promise<DreamRunRow | null> {
  const { rows } = await db.query<DreamRunRow>(
    `SELECT id, namespace, status, workflow_id, requested_by, started_at, finished_at, report, error FROM dream_run WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] ?? null;
}

/** Marks the run completed (once: a retry finds it so and returns the same report). */
export async function completeRun(db: Queryable, id: string): Promise<DreamReport> {
  const { rows } = await db.query<{ report: unknown }>(
    `UPDATE dream_run SET status = 'completed', finished_at = COALESCE(finished_at, now()), error = NULL
      WHERE id = $1 RETURNING report`,
    [id],
  );
  if (!rows[0]) throw new Error(`dream run ${id} not found`);
  return storedReport(rows[0].report);
}

export async function failRun(db: Queryable, id: string, error: string): Promise<void> {
  await db.query(
    `UPDATE dream_run SET status = 'failed', finished_at = COALESCE(finished_at, now()), error = $2 WHERE id = $1 AND status = 'running'`,
    [id, error.slice(0, 2000)],
  );
}

/** What the API shows of a run: its row with the report's counts and durations (not the internal checkpoint). */
export function runView(row: DreamRunRow) {
  return {
    id: row.id,
    namespace: row.namespace,
    status: row.status,
    workflow_id: row.workflow_id,
    requested_by: row.requested_by,
    started_at: row.started_at.toISOString(),
    finished_at: row.finished_at ? row.finished_at.toISOString() : null,
    report: storedReport(row.report),
    error: row.error,
  };
}
export type DreamRunView = ReturnType<typeof runView>;

/** Runs visible in `namespace` (null: every run, admin keys only), newest first. */
export async function listRuns(db: Queryable, namespace: string | null, limit: number): Promise<DreamRunView[]> {
  const { rows } = await db.query<DreamRunRow>(
    `SELECT id, namespace, status, workflow_id, requested_by, started_at, finished_at, report, error FROM dream_run
      WHERE ($1::text IS NULL OR namespace = $1) ORDER BY started_at DESC, id LIMIT $2`,
    [namespace, limit],
  );
  return rows.map(runView);
}
