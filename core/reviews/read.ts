import type { Queryable } from '../db/pool.js';
import type { ReviewKind } from './contracts.js';

/** A review item as the API returns it. */
export interface ReviewView {
  id: string;
  namespace: string;
  kind: ReviewKind;
  status: string;
  title: string;
  payload: Record<string, unknown>;
  fact_ids: string[];
  entity_ids: string[];
  episode_id: string | null;
  decision: string | null;
  decided_at: string | null;
  decided_by: string | null;
  resolution: unknown;
  escalated_at: string | null;
  workflow_id: string | null;
  created_at: string;
  updated_at: string;
}

/** The row as pg returns it: timestamps are Dates until rendered. */
type ReviewRow = Omit<ReviewView, 'decided_at' | 'escalated_at' | 'created_at' | 'updated_at'> & {
  decided_at: Date | null;
  escalated_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

const COLUMNS = `id, namespace, kind, status, title, payload, fact_ids, entity_ids, episode_id, decision, decided_at, decided_by,
  resolution, escalated_at, workflow_id, created_at, updated_at`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toView(row: ReviewRow): ReviewView {
  return {
    ...row,
    decided_at: iso(row.decided_at),
    escalated_at: iso(row.escalated_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** One item by id; `namespace` null only for trusted internal callers (the workflow's activities, which know the id). */
export async function getReview(db: Queryable, id: string, namespace: string | null, options: { forUpdate?: boolean } = {}): Promise<ReviewView | null> {
  const { rows } = await db.query<ReviewRow>(
    `SELECT ${COLUMNS} FROM review_item WHERE id = $1 AND ($2::text IS NULL OR namespace = $2)${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [id, namespace],
  );
  return rows[0] ? toView(rows[0]) : null;
}

/** `open`: waiting for a decision; `decided`: a decision was applied (older rows may say approved/rejected/resolved). */
export const REVIEW_STATUS_FILTERS = ['open', 'decided'] as const;
export type ReviewStatusFilter = (typeof REVIEW_STATUS_FILTERS)[number];

export interface ReviewListFilter {
  namespace: string;
  status?: ReviewStatusFilter;
  kind?: ReviewKind;
  limit: number;
  after?: ReviewCursor | null;
}

/** The last row of a page: created_at in microseconds since the epoch (exact, unlike a JS Date) and id. */
export interface ReviewCursor {
  createdMicros: string;
  id: string;
}

/** Cursor = the last row's (created_at, id), opaque to clients. */
export function encodeReviewCursor(c: ReviewCursor): string {
  return Buffer.from(JSON.stringify([c.createdMicros, c.id])).toString('base64url');
}

export function decodeReviewCursor(cursor: string): ReviewCursor | null {
  try {
    const [micros, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof micros !== 'string' || !/^\d{1,18}$/.test(micros)) return null;
    if (typeof id !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
    return { createdMicros: micros, id };
  } catch {
    return null;
  }
}

/** A namespace's items, newest first, keyset-paged. */
export async function listReviews(db: Queryable, filter: ReviewListFilter): Promise<{ reviews: ReviewView[]; next_cursor: string | null }> {
  const where = ['namespace = $1'];
  const values: unknown[] = [filter.namespace];
  if (filter.status === 'open') where.push(`status = 'open'`);
  if (filter.status === 'decided') where.push(`status <> 'open'`);
  if (filter.kind) {
    values.push(filter.kind);
    where.push(`kind = $${values.length}`);
  }
  if (filter.after) {
    values.push(filter.after.createdMicros, filter.after.id);
    where.push(`(created_at, id) < (timestamptz 'epoch' + $${values.length - 1}::bigint * interval '1 microsecond', $${values.length}::uuid)`);
  }
  values.push(filter.limit + 1);
  const { rows } = await db.query<ReviewRow & { created_micros: string }>(
    `SELECT ${COLUMNS}, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_micros
       FROM review_item WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
    values,
  );
  const page = rows.slice(0, filter.limit);
  const last = page[page.length - 1];
  return {
    reviews: page.map(({ created_micros: _, ...row }) => toView(row)),
    next_cursor: rows.length > filter.limit && last ? encodeReviewCursor({ createdMicros: last.created_micros, id: last.id }) : null,
  };
}
