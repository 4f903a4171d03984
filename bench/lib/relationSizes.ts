import type pg from 'pg';

/** Megabytes on disk of the main tables (heap with TOAST) and of each of their indexes. */
export async function relationSizes(pool: pg.Pool): Promise<{ tables: Record<string, number>; indexes: Record<string, number> }> {
  const tables = ['episode', 'episode_passage', 'fact', 'entity', 'entity_episode', 'fact_episode'];
  const mb = (bytes: string) => Math.round((Number(bytes) / 1048576) * 10) / 10;
  const { rows: t } = await pool.query<{ name: string; bytes: string }>(
    `SELECT c.relname AS name, (pg_table_size(c.oid))::text AS bytes FROM pg_class c WHERE c.relname = ANY($1) AND c.relkind = 'r' ORDER BY c.relname`,
    [tables],
  );
  const { rows: i } = await pool.query<{ name: string; bytes: string }>(
    `SELECT ic.relname AS name, pg_relation_size(ic.oid)::text AS bytes
     FROM pg_index x JOIN pg_class tc ON tc.oid = x.indrelid JOIN pg_class ic ON ic.oid = x.indexrelid
     WHERE tc.relname = ANY($1) ORDER BY pg_relation_size(ic.oid) DESC`,
    [tables],
  );
  return { tables: Object.fromEntries(t.map((r) => [r.name, mb(r.bytes)])), indexes: Object.fromEntries(i.map((r) => [r.name, mb(r.bytes)])) };
}
