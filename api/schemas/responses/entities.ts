import { z } from 'zod';
import { instant, nullableInstant } from './common.js';
import { factSchema } from './facts.js';

/** core/retrieval/entities.ts EntityView. */
export const entitySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    type: z.string(),
    aliases: z.array(z.string()),
    summary: z.string().nullable(),
    properties: z.record(z.string(), z.unknown()),
    sensitivity: z.string(),
    scope_user: z.string(),
    merged_into: z.uuid().nullable(),
    first_seen_at: instant,
    last_seen_at: instant,
    forgotten_at: nullableInstant,
    score: z.number().optional().meta({ description: 'How well it matched `q` (1 exact name, 0.9 alias, lower: substring / trigram)' }),
  })
  .meta({
    id: 'Entity',
    example: {
      id: '1b2c3d4e-5f60-4718-9a0b-c1d2e3f4a5b6',
      name: 'Orbital',
      type: 'organization',
      aliases: ['Orbital Inc'],
      summary: null,
      properties: {},
      sensitivity: 'internal',
      scope_user: '',
      merged_into: null,
      first_seen_at: '2026-01-10T09:00:01.400Z',
      last_seen_at: '2026-01-10T09:00:01.400Z',
      forgotten_at: null,
    },
  });

export const entityListSchema = z.object({ entities: z.array(entitySchema) }).meta({ id: 'EntityList' });

/** `GET /v1/entities/:id` (core/retrieval/entityMemory.ts). */
export const entityMemorySchema = z.object({ entity: entitySchema, facts: z.array(factSchema) }).meta({ id: 'EntityMemory' });

/** `GET /v1/entities/:id/neighborhood` (core/retrieval/neighborhood.ts). */
export const neighborhoodSchema = z
  .object({
    nodes: z.array(z.object({ id: z.string(), name: z.string(), type: z.string(), depth: z.number().int() })),
    edges: z.array(
      z.object({
        id: z.string(),
        source: z.string(),
        target: z.string(),
        predicate: z.string(),
        family: z.string(),
        fact_text: z.string(),
        effective_confidence: z.number(),
      }),
    ),
    truncated: z.boolean(),
  })
  .meta({ id: 'Neighborhood' });
