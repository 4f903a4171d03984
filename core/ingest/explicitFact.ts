import { z } from 'zod';
import { storableInstant } from '../domain/instant.js';
import { PREDICATES } from '../domain/predicates.js';
import { entityTypeSchema, memoryKindSchema, predicateFamilySchema, sensitivitySchema } from '../domain/types.js';
import type { EntityCandidate, FactCandidate } from '../extraction/types.js';

/**
 * A triple stated directly through `POST /v1/facts`. It travels in the
 * episode's metadata and replaces the extraction stages' guesses, then passes
 * the same gates (resolution, dedup, temporal, contradiction, write limit).
 */
export const explicitFactSchema = z
  .strictObject({
    subject: z.string().trim().min(1).max(200),
    subject_type: entityTypeSchema.default('other'),
    predicate: z.string().trim().regex(/^[a-z][a-z0-9_]{0,63}$/, 'snake_case, e.g. works_at'),
    predicate_raw: z.string().trim().min(1).max(200).optional(),
    object: z.string().trim().min(1).max(200).optional(),
    object_type: entityTypeSchema.default('other'),
    value: z.string().trim().min(1).max(1000).optional(),
    family: predicateFamilySchema.optional(),
    fact_text: z.string().trim().min(1).max(1000).optional(),
    memory_kind: memoryKindSchema.default('semantic'),
    importance: z.number().min(0).max(1).default(0.5),
    confidence: z.number().min(0).max(1).default(0.7),
    sensitivity: sensitivitySchema.optional(),
    valid_from: storableInstant().optional(),
    invalid_at: storableInstant().optional(),
  })
  .refine((f) => (f.object === undefined) !== (f.value === undefined), { message: 'give exactly one of object or value', path: ['object'] });
export type ExplicitFact = z.infer<typeof explicitFactSchema>;

export function explicitFactOf(metadata: Record<string, unknown> | undefined): ExplicitFact | null {
  const parsed = explicitFactSchema.safeParse(metadata?.explicit_fact);
  return parsed.success ? parsed.data : null;
}

export function explicitFactText(f: ExplicitFact): string {
  return f.fact_text ?? `${f.subject} ${f.predicate_raw ?? f.predicate.replace(/_/g, ' ')} ${f.object ?? f.value}.`;
}

export function explicitEntities(f: ExplicitFact): EntityCandidate[] {
  const entities: EntityCandidate[] = [{ name: f.subject, type: f.subject_type, aliases: [] }];
  if (f.object) entities.push({ name: f.object, type: f.object_type, aliases: [] });
  return entities;
}

export function explicitCandidate(f: ExplicitFact): FactCandidate {
  return {
    subject: f.subject,
    predicate: f.predicate,
    predicate_raw: f.predicate_raw ?? f.predicate.replace(/_/g, ' '),
    family: f.family ?? PREDICATES[f.predicate]?.family ?? 'other',
    object: f.object ?? null,
    value: f.value ?? null,
    fact_text: explicitFactText(f),
    memory_kind: f.memory_kind,
    importance: f.importance,
    confidence: f.confidence,
    negated: false,
    time_expression: null,
  };
}
