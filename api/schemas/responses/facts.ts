import { z } from 'zod';
import { DECAY_CLASSES } from '../../../core/domain/types.js';
import { instant, nullableInstant } from './common.js';

export const entityRefSchema = z.object({ id: z.uuid(), name: z.string(), type: z.string() }).meta({ id: 'EntityRef' });

const factExampleId = '5d1c2a77-3f0b-4a65-8f3e-0c7a4b9d2e10';
const factExample = {
  id: factExampleId,
  subject: { id: '9a3e1f20-4b7c-4d8e-a1f2-3c4d5e6f7a80', name: 'Nadia', type: 'person' },
  predicate: 'works_at',
  family: 'work',
  object: { id: '1b2c3d4e-5f60-4718-9a0b-c1d2e3f4a5b6', name: 'Orbital', type: 'organization' },
  value: null,
  fact_text: 'Nadia works at Orbital',
  effective_confidence: 0.86,
  decay_class: 'slow_decay',
  freshness: 'confirmed 2 days ago',
  last_confirmed_at: '2026-01-10T09:00:01.400Z',
  valid_from: '2026-01-10T09:00:00.000Z',
  episode_ids: ['0b6f3c1e-6a0e-4c1f-9d7e-2f2d8c5e9a11'],
};

/** What a context block shows of a fact (core/retrieval/facts.ts CompactFactView). */
export const compactFactSchema = z
  .object({
    id: z.uuid(),
    subject: entityRefSchema,
    predicate: z.string(),
    family: z.string(),
    object: entityRefSchema.nullable(),
    value: z.string().nullable(),
    fact_text: z.string(),
    effective_confidence: z.number().meta({ description: 'Confidence after decay at the reference time' }),
    decay_class: z.enum(DECAY_CLASSES),
    freshness: z.string(),
    last_confirmed_at: instant,
    valid_from: nullableInstant,
    episode_ids: z.array(z.uuid()),
  })
  .meta({ id: 'CompactFact', example: factExample });

/** A fact as every read endpoint returns it (core/retrieval/facts.ts FactView). */
export const factSchema = compactFactSchema
  .extend({
    predicate_raw: z.string(),
    memory_kind: z.string(),
    importance: z.number(),
    confidence: z.number(),
    invalid_at: nullableInstant,
    recorded_at: instant,
    expired_at: nullableInstant,
    invalidated_by: z.uuid().nullable(),
    source: z.string(),
    sensitivity: z.string(),
    forgotten_at: nullableInstant,
  })
  .meta({
    id: 'Fact',
    example: {
      ...factExample,
      predicate_raw: 'works at',
      memory_kind: 'semantic',
      importance: 0.5,
      confidence: 0.9,
      invalid_at: null,
      recorded_at: '2026-01-10T09:00:01.400Z',
      expired_at: null,
      invalidated_by: null,
      source: 'extraction',
      sensitivity: 'internal',
      forgotten_at: null,
    },
  });

/** `GET /v1/facts` lists facts with their confirmation count and correction history (core/facts/query.ts). */
export const listedFactSchema = factSchema
  .extend({
    confirmation_count: z.number().int(),
    previous_values: z.unknown().meta({ description: 'Earlier values replaced by corrections, oldest first' }),
    properties: z.unknown(),
  })
  .meta({ id: 'ListedFact' });

export const factListSchema = z.object({ facts: z.array(listedFactSchema) }).meta({ id: 'FactList' });

/** `202` of `POST /v1/facts`: the explicit fact became an episode that goes through the stages. */
export const acceptedFactSchema = z
  .object({ id: z.uuid(), workflow_id: z.string(), status: z.literal('pending'), episode_id: z.uuid() })
  .meta({ id: 'AcceptedFact' });

/** `DELETE /v1/facts/:id`, `POST /v1/facts/:id/forget`, and the entity forget. */
export const forgottenSchema = z.object({ id: z.uuid(), forgotten_at: instant }).meta({ id: 'Forgotten' });
export const restoredSchema = z.object({ id: z.uuid(), restored: z.boolean().meta({ description: 'false: it was not forgotten' }) }).meta({ id: 'Restored' });
