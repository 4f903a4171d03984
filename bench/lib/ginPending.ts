import type pg from 'pg';

/**
 * Pages in each GIN index's pending list (entries not yet merged into the index, which every search of it reads in
 * full), from pgstattuple's `pgstatginindex`; null where the extension cannot be had (not installed, or no right to
 * create it).
 */
export async function ginPendingPages(pool: pg.Pool): Promise<Record<string, number> | null> {
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
    const { rows } = await pool.query<{ index: string; pending_pages: number }>(
      `SELECT c.relname AS index, (pgstatginindex(c.oid)).pending_pages::int AS pending_pages
       FROM pg_class c JOIN pg_am am ON am.oid = c.relam AND am.amname = 'gin'
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
       ORDER BY c.relname`,
    );
    return Object.fromEntries(rows.map((r) => [r.index, r.pending_pages]));
  } catch {
    return null;
  }
}
