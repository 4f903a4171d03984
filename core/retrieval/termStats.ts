import type { Queryable } from '../db/pool.js';

/**
 * Copies the lexeme statistics of the last ANALYZE into `term_share`, which the
 * keyword signal reads to weigh query terms by rarity. Concurrent: reads keep
 * using the previous copy meanwhile. Cheap (a few thousand rows), so the
 * schedule simply runs it rather than checking whether ANALYZE ran since.
 */
export async function refreshTermStats(db: Queryable): Promise<{ lexemes: number }> {
  await db.query('REFRESH MATERIALIZED VIEW CONCURRENTLY term_share');
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM term_share WHERE lexeme <> ''`);
  return { lexemes: rows[0].n };
}
