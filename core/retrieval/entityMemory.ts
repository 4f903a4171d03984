import type { Queryable } from '../db/pool.js';
import { getEntity, type EntityView } from './entities.js';
import { queryFacts, type FactView } from './facts.js';
import type { ReadScope } from './scope.js';

export interface EntityMemory {
  entity: EntityView;
  /** Facts where it is subject or object, by priority: effective confidence weighted by importance. */
  facts: FactView[];
}

const MAX_FACTS = 200;

/** Everything known about one entity at the reference time; null when the entity is not in the scope. */
export async function entityMemory(db: Queryable, scope: ReadScope, id: string): Promise<EntityMemory | null> {
  const entity = await getEntity(db, scope, id);
  if (!entity) return null;
  const facts = await queryFacts(db, scope, {
    where: (p) => {
      const ref = `${p.add(entity.id)}::uuid`; // the survivor's id when `id` was merged into it
      return `(f.subject_id = ${ref} OR f.object_id = ${ref})`;
    },
    order: 'priority',
    limit: MAX_FACTS,
  });
  return { entity, facts };
}
