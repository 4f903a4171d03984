import { HALF_LIFE_DAYS } from './decay.js';
import { PREDICATES } from './predicates.js';
import {
  DECAY_CLASSES, ENTITY_TYPE_DESCRIPTIONS, ENTITY_TYPES, PREDICATE_FAMILIES, PREDICATE_FAMILY_DESCRIPTIONS,
  type DecayClass, type EntityType, type PredicateFamily,
} from './types.js';

/**
 * The graph's vocabulary as data (GET /v1/ontology), read from the same tables
 * extraction, decay and the model prompts use, so agents and the /kg page
 * never hard-code a second copy that drifts.
 */
export interface Ontology {
  node_types: Array<{ name: EntityType; description: string }>;
  predicates: Array<{ name: string; family: PredicateFamily; single_valued: boolean; decay_class: DecayClass; description: string }>;
  families: Array<{ name: PredicateFamily; description: string; predicates: string[] }>;
  decay_classes: Array<{ name: DecayClass; half_life_days: number | null }>;
  /** Predicates outside the table are accepted: multi-valued, slow decay (fast for preferences), family as extracted. */
  open_world: boolean;
}

export function describeOntology(): Ontology {
  const predicates = Object.entries(PREDICATES)
    .map(([name, spec]) => ({ name, family: spec.family, single_valued: spec.singleValued, decay_class: spec.decayClass, description: spec.description }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return {
    node_types: ENTITY_TYPES.map((name) => ({ name, description: ENTITY_TYPE_DESCRIPTIONS[name] })),
    predicates,
    families: PREDICATE_FAMILIES.map((name) => ({
      name,
      description: PREDICATE_FAMILY_DESCRIPTIONS[name],
      predicates: predicates.filter((p) => p.family === name).map((p) => p.name),
    })),
    decay_classes: DECAY_CLASSES.map((name) => ({ name, half_life_days: HALF_LIFE_DAYS[name] })),
    open_world: true,
  };
}
