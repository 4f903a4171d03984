import { z } from 'zod';

export const ENTITY_TYPES = ['person', 'organization', 'project', 'decision', 'event', 'concept', 'place', 'product', 'other'] as const;
export const entityTypeSchema = z.enum(ENTITY_TYPES);
export type EntityType = z.infer<typeof entityTypeSchema>;

export const PREDICATE_FAMILIES = ['preferences', 'people', 'places', 'work', 'ownership', 'health', 'financial', 'events', 'other'] as const;
export const predicateFamilySchema = z.enum(PREDICATE_FAMILIES);
export type PredicateFamily = z.infer<typeof predicateFamilySchema>;

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
