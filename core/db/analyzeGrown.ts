import type { Queryable } from './pool.js';

/** A table counts as grown when it has this much more than at its last ANALYZE (autovacuum's default share)… */
const GROWTH_SHARE = 0.2;
/** …and at least this many pages more, so small tables are not analyzed over a few rows. */
const GROWTH_MIN_PAGES = 10;

/**
 * ANALYZEs the tables of the public schema that grew by more than a fifth since their last ANALYZE (pages on
 * disk against `pg_class.relpages`, which ANALYZE sets), and returns their names. Autovacuum does this on a
 * server where it runs; PGlite has none (one backend, no launcher), and a server may have it off. Without it
 * the planner keeps the estimates of an empty table (plans that scan a grown table once per lookup) and the
 * keyword signal's term rarity (`term_share`, copied from ANALYZE's statistics) stays empty. The check reads
 * only the catalog, so where autovacuum keeps up it finds nothing to do.
 */
export async function analyzeGrownTables(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c
      WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
        AND pg_relation_size(c.oid) / current_setting('block_size')::int > GREATEST(c.relpages, 0) * (1 + $1::float8) + $2::int
      ORDER BY c.relname`,
    [GROWTH_SHARE, GROWTH_MIN_PAGES],
  );
  // Names come from the catalog; quoted all the same.
  for (const { relname } of rows) await db.query(`ANALYZE public."${relname.replace(/"/g, '""')}"`);
  return rows.map((r) => r.relname);
}
