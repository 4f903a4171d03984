import type { Queryable } from '../db/pool.js';
import { nameKey } from '../domain/canonical.js';
import { entityFilter, type ReadScope } from './scope.js';
import { SqlParams } from './sql.js';

/**
 * SQL selecting the ids of the entities that stand for the user of the scope
 * ("I/me/my" in their episodes resolve to the episode's speaker, which
 * defaults to the user id): entities learnt for that user that carry the id in
 * `properties.user_id`, are named by it, or are named like a speaker of the
 * user's recent episodes.
 */
export function userEntitySql(p: SqlParams, scope: ReadScope & { userId: string }): string {
  const user = p.add(scope.userId);
  const ns = p.add(scope.namespace);
  // Same folding as nameKey() for speakers read from episodes (lower case, no . , ' ").
  return `SELECT n.id FROM entity n
     WHERE ${entityFilter(p, scope)}
       AND (n.properties->>'user_id' = ${user} OR n.name_key = ${p.add(nameKey(scope.userId))}
            OR n.name_key IN (SELECT regexp_replace(lower(s.speaker), '[.,''"]', '', 'g') FROM (
                 SELECT e.speaker FROM episode e WHERE e.namespace = ${ns} AND e.user_id = ${user} AND e.speaker IS NOT NULL
                 ORDER BY e.recorded_at DESC, e.id DESC LIMIT 50) s))
     ORDER BY (n.type = 'person') DESC, n.last_seen_at DESC LIMIT 5`;
}

/** The user's own entities (empty without a user id). */
export async function userEntityIds(db: Queryable, scope: ReadScope): Promise<string[]> {
  if (scope.userId === undefined) return [];
  const p = new SqlParams();
  const { rows } = await db.query<{ id: string }>(userEntitySql(p, { ...scope, userId: scope.userId }), p.values);
  return rows.map((r) => r.id);
}

/**
 * Condition on fact `f`: about the user's own entities, or, when no entity is
 * known to stand for the user, any fact learnt for them (the scope filter
 * already keeps facts to the user). One statement instead of two.
 */
export function userFactCondition(p: SqlParams, scope: ReadScope & { userId: string }): string {
  // The id list is computed once (an InitPlan); NULL when empty, which lets every fact of the scope through.
  return `coalesce(f.subject_id = ANY(CAST((SELECT nullif(ARRAY(${userEntitySql(p, scope)}), '{}'::uuid[])) AS uuid[])), true)`;
}
