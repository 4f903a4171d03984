import type { Queryable } from '../db/pool.js';
import { nameGrams, type NameGrams } from './queryText.js';
import { entityFilter, type ReadScope } from './scope.js';
import { SqlParams } from './sql.js';

export interface EntitySeed {
  id: string;
  type: string;
  /** Canonical name key and lower-cased aliases: what a speaker label of the entity looks like. */
  names: string[];
  /** 1 exact name, 0.9 alias, below that trigram similarity. */
  score: number;
}

/** Also the read pool's `pg_trgm.similarity_threshold` (core/db/pool.ts), so the trigram index itself stops at it. */
const FUZZY_MIN_SIMILARITY = 0.5;

export interface NameMatchOptions {
  /** Also close trigram matches (typos); a caller that keeps only exact names and aliases (score ≥ 0.9) skips them. */
  fuzzy?: boolean;
}

/** SQL of (id, score) for the entities named exactly (1.0) or by an alias as written (0.9): each branch on its own index. */
function exactlyNamedSql(p: SqlParams, filter: string, grams: NameGrams): string {
  return `SELECT n.id, 1.0::float8 AS score FROM entity n WHERE ${filter} AND n.name_key = ANY(${p.add(grams.keys)}::text[])
      UNION ALL SELECT n.id, 0.9::float8 AS score FROM entity n WHERE ${filter} AND n.aliases && ${p.add(grams.surfaces)}::text[]`;
}

/** SQL selecting the ids of the entities a query's `grams` name exactly or by an alias, for a condition built with the same parameters. */
export function namedEntityIdsSql(p: SqlParams, scope: ReadScope, grams: NameGrams): string {
  return `SELECT named.id FROM (${exactlyNamedSql(p, entityFilter(p, scope), grams)}) named`;
}

/** SQL of (id, score) ranking `branches` of (id, score): each entity once at its best score, strongest first, then by id, the first `top`. */
function strongestFirst(branches: string, top: string): string {
  return `SELECT m.id, m.score FROM (SELECT u.id, max(u.score) AS score FROM (${branches}) u GROUP BY u.id) m ORDER BY m.score DESC, m.id LIMIT ${top}`;
}

/**
 * SQL selecting the ids of the `limit` entities a query's `grams` name most
 * strongly (exact name before alias, then by id): what `entitiesNamedIn` with
 * `fuzzy: false` returns, as a subquery, so a caller needing only the ids
 * saves a round trip.
 */
export function topNamedEntityIdsSql(p: SqlParams, scope: ReadScope, grams: NameGrams, limit: number): string {
  return `SELECT t.id FROM (${strongestFirst(exactlyNamedSql(p, entityFilter(p, scope), grams), p.add(limit))}) t`;
}

/**
 * Entities the query names: exact canonical name, an alias as written, or a
 * close trigram match (typos, inflections) of a longer span. One statement,
 * each branch on its own index (name_key btree, aliases GIN, name trigram GIN).
 * Trigram matches score at most 0.8, below every exact name or alias, so when
 * those already fill `limit` the trigram branch cannot change the answer and
 * is skipped (a one-time filter): each of its spans is a trigram index scan.
 */
export async function entitiesNamedIn(db: Queryable, scope: ReadScope, query: string, limit = 8, options: NameMatchOptions = {}): Promise<EntitySeed[]> {
  const grams = nameGrams(query);
  if (!grams.keys.length) return [];
  const p = new SqlParams();
  const filter = entityFilter(p, scope);
  const named = `named AS (${exactlyNamedSql(p, filter, grams)})`;
  const top = p.add(limit);
  const branches = ['SELECT id, score FROM named'];
  if (options.fuzzy !== false && grams.fuzzy.length) {
    const fuzzy = `${p.add(grams.fuzzy)}::text[]`;
    const min = p.add(FUZZY_MIN_SIMILARITY);
    branches.push(`SELECT n.id, 0.8 * similarity(n.name, g)::float8 AS score FROM entity n CROSS JOIN unnest(${fuzzy}) g
      WHERE (SELECT count(DISTINCT id) FROM named) < ${top} AND ${filter} AND n.name % g AND similarity(n.name, g) >= ${min}`);
  }
  const { rows } = await db.query<{ id: string; score: number; type: string; names: string[] }>(
    `WITH ${named}
     SELECT m.id, m.score, n.type, ARRAY(SELECT DISTINCT x FROM unnest(n.name_key || ARRAY(SELECT lower(a) FROM unnest(n.aliases) a)) x) AS names
     FROM (${strongestFirst(branches.join(' UNION ALL '), top)}) m JOIN entity n ON n.id = m.id
     ORDER BY m.score DESC, m.id`,
    p.values,
  );
  return rows.map((r) => ({ id: r.id, score: Number(r.score), type: r.type, names: r.names }));
}
