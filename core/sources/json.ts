import { z } from 'zod';
import { storableInstant } from '../domain/instant.js';
import { nameKey } from '../domain/canonical.js';
import { PREDICATES } from '../domain/predicates.js';
import { entityTypeSchema, type EntityType } from '../domain/types.js';
import type { EntityCandidate } from '../extraction/types.js';
import { tripleText, type SourceDocument, type SourcedFact, type StatedValidity } from './document.js';

/** Triples per episode: one episode commits in one transaction and travels through workflow history. */
export const MAX_JSON_FACTS = 1000;
/** Confidence of a triple that states none: data the user already holds, above a model's reading of prose. */
export const DEFAULT_JSON_CONFIDENCE = 0.9;

const entityName = z.string().trim().min(1).max(200);
const predicateName = z.string().trim().regex(/^[a-z][a-z0-9_]{0,63}$/, 'snake_case, e.g. works_at');
const instant = storableInstant();
const literal = z.union([z.string().trim().min(1).max(300), z.number(), z.boolean()]);
const confidence = z.number().min(0).max(1);

function endsAfterStart(f: { valid_from?: string; invalid_at?: string }): boolean {
  return !f.valid_from || !f.invalid_at || Date.parse(f.invalid_at) > Date.parse(f.valid_from);
}

export const jsonTripleSchema = z
  .strictObject({
    subject: entityName,
    subject_type: entityTypeSchema.optional(),
    predicate: predicateName,
    object: entityName.optional(),
    object_type: entityTypeSchema.optional(),
    value: literal.optional(),
    valid_from: instant.optional(),
    invalid_at: instant.optional(),
    confidence: confidence.optional(),
    fact_text: z.string().trim().min(1).max(300).optional(),
  })
  .refine((f) => (f.object === undefined) !== (f.value === undefined), { message: 'give exactly one of object or value', path: ['object'] })
  .refine(endsAfterStart, { message: 'must be after valid_from', path: ['invalid_at'] });
export type JsonTriple = z.infer<typeof jsonTripleSchema>;

export const jsonFactsSchema = z.strictObject({
  facts: z.array(jsonTripleSchema).min(1, 'must hold at least one fact').max(MAX_JSON_FACTS, `at most ${MAX_JSON_FACTS} facts per memory`),
});

/** A record field's value: a literal, an entity (`{object, object_type}`), or a list of either. */
const recordEntity = z.strictObject({ object: entityName, object_type: entityTypeSchema.optional() });
const recordItem = z.union([literal, recordEntity]);
export const jsonRecordSchema = z
  .strictObject({
    subject: entityName,
    subject_type: entityTypeSchema.optional(),
    record: z
      .record(predicateName, z.union([recordItem, z.array(recordItem).min(1).max(MAX_JSON_FACTS)]))
      .refine((r) => Object.keys(r).length > 0, 'must hold at least one field'),
    valid_from: instant.optional(),
    invalid_at: instant.optional(),
    confidence: confidence.optional(),
  })
  .refine(endsAfterStart, { message: 'must be after valid_from', path: ['invalid_at'] });

/** `{facts: [...]}` or `{subject, record}`: the schema of the shape the value has (so errors name its fields). */
export function structuredSchemaFor(value: unknown): typeof jsonFactsSchema | typeof jsonRecordSchema {
  return value && typeof value === 'object' && 'record' in value && !('facts' in value) ? jsonRecordSchema : jsonFactsSchema;
}

/** A record as triples: one per field (one per item of a list field), the record's validity and confidence on each. */
export function recordTriples(r: z.infer<typeof jsonRecordSchema>): JsonTriple[] {
  const shared = { subject: r.subject, subject_type: r.subject_type, valid_from: r.valid_from, invalid_at: r.invalid_at, confidence: r.confidence };
  return Object.entries(r.record).flatMap(([predicate, field]) =>
    (Array.isArray(field) ? field : [field]).map((item): JsonTriple =>
      typeof item === 'object' ? { ...shared, predicate, object: item.object, object_type: item.object_type } : { ...shared, predicate, value: item },
    ),
  );
}

/** The triples an episode's stored JSON content holds. */
export function readJsonContent(content: string): JsonTriple[] {
  const value: unknown = JSON.parse(content);
  const schema = structuredSchemaFor(value);
  if (schema === jsonRecordSchema) return recordTriples(jsonRecordSchema.parse(value));
  return jsonFactsSchema.parse(value).facts;
}

// Object types a predicate implies when the triple names none (resolution keeps `other` compatible with any type).
const OBJECT_TYPES: Partial<Record<string, EntityType>> = {
  works_at: 'organization', studies_at: 'organization', member_of: 'organization', founded: 'organization', invested_in: 'organization',
  lives_in: 'place', located_in: 'place', born_in: 'place', visited: 'place', travels_to: 'place', moved_to: 'place', from_place: 'place',
  knows: 'person', friend_of: 'person', married_to: 'person', partner_of: 'person', reports_to: 'person', parent_of: 'person',
  child_of: 'person', sibling_of: 'person', attended: 'event', works_on: 'project',
};
// Predicates whose subject is a person when the triple declares no type.
const PERSON_SUBJECT_FAMILIES = new Set(['people', 'health', 'preferences']);
const PERSON_SUBJECTS = new Set(['works_at', 'studies_at', 'has_role', 'reports_to', 'lives_in', 'born_in', 'from_place', 'attended']);

function inferredSubjectType(predicate: string): EntityType {
  return PERSON_SUBJECT_FAMILIES.has(PREDICATES[predicate]?.family ?? '') || PERSON_SUBJECTS.has(predicate) ? 'person' : 'other';
}

/**
 * One type per name across the batch (else "Nadia" would be a person in one
 * triple and an `other` in the next, two entities): a declared type first,
 * then one the predicates imply, else `other`.
 */
function entityTypes(triples: JsonTriple[]): Map<string, EntityType> {
  const declared = new Map<string, EntityType>();
  const inferred = new Map<string, EntityType>();
  const note = (name: string, type: EntityType | undefined, guess: EntityType | undefined) => {
    const key = nameKey(name);
    if (type && !declared.has(key)) declared.set(key, type);
    if (guess && guess !== 'other' && !inferred.has(key)) inferred.set(key, guess);
  };
  for (const t of triples) {
    note(t.subject, t.subject_type, inferredSubjectType(t.predicate));
    if (t.object !== undefined) note(t.object, t.object_type, OBJECT_TYPES[t.predicate]);
  }
  const types = new Map(inferred);
  for (const [key, type] of declared) types.set(key, type);
  return types;
}

/** Typed triples as stated facts: no model reads them, the later stages (dedup, temporal, contradiction, commit) do. */
export function jsonDocument(triples: JsonTriple[]): SourceDocument {
  const types = entityTypes(triples);
  const entities = new Map<string, EntityCandidate>();
  const addEntity = (name: string) => {
    const key = nameKey(name);
    if (!entities.has(key)) entities.set(key, { name, type: types.get(key) ?? 'other', aliases: [] });
  };
  const facts = triples.map((t): SourcedFact => {
    addEntity(t.subject);
    if (t.object !== undefined) addEntity(t.object);
    const value = t.value === undefined ? null : String(t.value);
    const predicateRaw = t.predicate.replace(/_/g, ' ');
    const stated: StatedValidity | undefined =
      t.valid_from || t.invalid_at ? { valid_from: t.valid_from ?? null, invalid_at: t.invalid_at ?? null } : undefined;
    return {
      subject: t.subject,
      predicate: t.predicate,
      predicate_raw: predicateRaw,
      family: PREDICATES[t.predicate]?.family ?? 'other',
      object: t.object ?? null,
      value,
      fact_text: t.fact_text ?? tripleText(t.subject, predicateRaw, t.object ?? value ?? ''),
      memory_kind: 'semantic',
      importance: 0.5,
      confidence: t.confidence ?? DEFAULT_JSON_CONFIDENCE,
      negated: false,
      time_expression: null,
      ...(stated ? { stated_validity: stated } : {}),
    };
  });
  return { entities: [...entities.values()], facts, text: '', speaker: null };
}
