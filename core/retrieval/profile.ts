import type { Queryable } from '../db/pool.js';
import { PREDICATE_FAMILIES, type PredicateFamily } from '../domain/types.js';
import { queryFacts, type EntityRef, type FactView } from './facts.js';
import type { ReadScope } from './scope.js';
import { SqlParams } from './sql.js';
import { userEntityIds } from './userEntity.js';

export interface UserProfile {
  user_id: string;
  namespace: string;
  /** The entities that stand for the user; empty when none is known, then every fact learnt for the user is shown. */
  entities: EntityRef[];
  families: Record<PredicateFamily, FactView[]>;
  fact_count: number;
}

const MAX_FACTS = 500;

/** The user's active facts grouped by family, most certain first within each family. */
export async function userProfile(db: Queryable, scope: ReadScope & { userId: string }): Promise<UserProfile> {
  const ids = await userEntityIds(db, scope);
  const facts = await queryFacts(db, scope, {
    where: (p) => (ids.length ? `f.subject_id = ANY(${p.add(ids)}::uuid[])` : 'true'),
    order: 'effective',
    limit: MAX_FACTS,
  });
  const families = Object.fromEntries(PREDICATE_FAMILIES.map((f) => [f, [] as FactView[]])) as Record<PredicateFamily, FactView[]>;
  for (const fact of facts) (families[fact.family as PredicateFamily] ?? families.other).push(fact);
  let entities: EntityRef[] = [];
  if (ids.length) {
    const p = new SqlParams();
    const { rows } = await db.query<EntityRef>(`SELECT id, name, type FROM entity WHERE id = ANY(${p.add(ids)}::uuid[]) ORDER BY name`, p.values);
    entities = rows;
  }
  return { user_id: scope.userId, namespace: scope.namespace, entities, families, fact_count: facts.length };
}
