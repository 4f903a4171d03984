import type { Queryable } from '../db/pool.js';
import type { DreamCursor } from './contracts.js';

/**
 * Where a pass starts: the run's namespace, or the first of all namespaces.
 * A pass works through one namespace at a time, so no statement of the dream
 * spans two namespaces.
 */
export async function firstCursor(db: Queryable, scope: string | null): Promise<DreamCursor | null> {
  if (scope !== null) return { namespace: scope, after: null };
  const { rows } = await db.query<{ id: string }>('SELECT id FROM namespace ORDER BY id LIMIT 1');
  return rows[0] ? { namespace: rows[0].id, after: null } : null;
}

/** The cursor after a batch: further in the same namespace while batches come back full, else the next namespace (every-namespace runs), else done. */
export async function cursorAfter(
  db: Queryable,
  scope: string | null,
  at: DreamCursor,
  batch: { full: boolean; lastKey: string | null },
): Promise<DreamCursor | null> {
  if (batch.full && batch.lastKey !== null) return { namespace: at.namespace, after: batch.lastKey };
  if (scope !== null) return null;
  const { rows } = await db.query<{ id: string }>('SELECT id FROM namespace WHERE id > $1 ORDER BY id LIMIT 1', [at.namespace]);
  return rows[0] ? { namespace: rows[0].id, after: null } : null;
}
