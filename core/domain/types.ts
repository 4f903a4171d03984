import { z } from 'zod';

export const ENTITY_TYPES = ['person', 'organization', 'project', 'decision', 'event', 'concept', 'place', 'product', 'other'] as const;
export const entityTypeSchema = z.enum(ENTITY_TYPES);
export type EntityType = z.infer<typeof entityTypeSchema>;

/** What each node type holds: shown to the model (entity-extract prompt) and by GET /v1/ontology. */
export const ENTITY_TYPE_DESCRIPTIONS: Record<EntityType, string> = {
  person: 'a human being, named or by role ("Stefan", "CEO")',
  organization: 'a company, team, institution, club',
  project: 'a named piece of work or initiative',
  decision: 'a decision that was taken, named by what was decided ("move the launch to March", "switch to Postgres")',
  event: 'a meeting, trip, conference, party, appointment',
  concept: 'a topic, skill, idea or field ("machine learning")',
  place: 'a city, country, address, venue',
  product: 'a product, plan, tool, service or thing owned ("Advanced plan", "iPhone")',
  other: 'anything else worth remembering as a node',
};

export const PREDICATE_FAMILIES = ['preferences', 'people', 'places', 'work', 'ownership', 'health', 'financial', 'events', 'other'] as const;
export const predicateFamilySchema = z.enum(PREDICATE_FAMILIES);
export type PredicateFamily = z.infer<typeof predicateFamilySchema>;

/** What each predicate family groups (GET /v1/ontology; retrieval weighs facts by family). */
export const PREDICATE_FAMILY_DESCRIPTIONS: Record<PredicateFamily, string> = {
  preferences: 'likes, dislikes, wishes, interests and opinions',
  people: 'identity and relations between people (family, friends, partners)',
  places: 'where someone lives, comes from, goes or is located',
  work: 'employment, roles, projects, organizations and collaboration',
  ownership: 'what someone owns, uses or what belongs to whom',
  health: 'conditions, allergies and medication',
  financial: 'prices, income, budgets, debts and investments',
  events: 'things that happened or are planned: meetings, moves, decisions',
  other: 'classes, statuses and loose links',
};

export const MEMORY_KINDS = ['episode', 'semantic', 'viewpoint'] as const;
export const memoryKindSchema = z.enum(MEMORY_KINDS);
export type MemoryKind = z.infer<typeof memoryKindSchema>;

export const DECAY_CLASSES = ['permanent', 'slow_decay', 'fast_decay'] as const;
export const decayClassSchema = z.enum(DECAY_CLASSES);
export type DecayClass = z.infer<typeof decayClassSchema>;

export const SENSITIVITIES = ['public', 'internal', 'confidential', 'restricted'] as const;
export const sensitivitySchema = z.enum(SENSITIVITIES);
export type Sensitivity = z.infer<typeof sensitivitySchema>;

export const EPISODE_STATUSES = ['pending', 'extracting', 'extracted', 'failed', 'skipped'] as const;
export type EpisodeStatus = (typeof EPISODE_STATUSES)[number];

export const ROLES = ['agent', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Stage names are stored in stage_run rows and activity names: a public API. */
export const STAGES = ['entity-extract', 'entity-resolve', 'fact-extract', 'fact-dedup', 'temporal', 'contradiction', 'commit'] as const;
export type Stage = (typeof STAGES)[number];
