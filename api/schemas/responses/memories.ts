import { z } from 'zod';
import { EPISODE_STATUSES } from '../../../core/domain/types.js';
import { instant, nullableInstant } from './common.js';
import { factSchema } from './facts.js';

const exampleId = '0b6f3c1e-6a0e-4c1f-9d7e-2f2d8c5e9a11';

/** `202` of `POST /v1/memories` (and of each item of a batch): stored, extraction pending. */
export const acceptedMemorySchema = z
  .object({ id: z.uuid(), workflow_id: z.string(), status: z.literal('pending') })
  .meta({ id: 'AcceptedMemory', example: { id: exampleId, workflow_id: `episode:${exampleId}`, status: 'pending' } });

export const acceptedBatchSchema = z.object({ memories: z.array(acceptedMemorySchema) }).meta({ id: 'AcceptedBatch' });

/** An episode as `GET /v1/memories` lists it (core/memories/read.ts EpisodeView). */
export const memorySchema = z
  .object({
    id: z.uuid(),
    namespace: z.string(),
    user_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    run_id: z.string().nullable(),
    speaker: z.string().nullable(),
    content: z.string(),
    source: z.string().nullable(),
    metadata: z.unknown(),
    occurred_at: instant,
    recorded_at: instant,
    t_valid_override: nullableInstant,
    skip_extraction: z.boolean(),
    status: z.enum(EPISODE_STATUSES),
    error: z.string().nullable(),
    workflow_id: z.string(),
    extraction_count: z.number().int(),
    extracted_at: nullableInstant,
    forgotten_at: nullableInstant,
  })
  .meta({
    id: 'Memory',
    example: {
      id: exampleId,
      namespace: 'default',
      user_id: 'nadia',
      agent_id: null,
      run_id: null,
      speaker: null,
      content: 'Nadia works at Orbital.',
      source: null,
      metadata: {},
      occurred_at: '2026-01-10T09:00:00.000Z',
      recorded_at: '2026-01-10T09:00:00.120Z',
      t_valid_override: null,
      skip_extraction: false,
      status: 'extracted',
      error: null,
      workflow_id: `episode:${exampleId}`,
      extraction_count: 1,
      extracted_at: '2026-01-10T09:00:01.400Z',
      forgotten_at: null,
    },
  });

/** `GET /v1/memories/:id`: the episode with the ids of what its extraction produced. */
export const memoryDetailSchema = memorySchema.extend({ entity_ids: z.array(z.uuid()), fact_ids: z.array(z.uuid()) }).meta({ id: 'MemoryDetail' });

/** `?expand=facts`: the facts and entities themselves (core/memories/expand.ts). */
export const memoryExpandedSchema = memoryDetailSchema
  .extend({
    facts: z.array(factSchema.extend({ relations: z.array(z.enum(['created', 'confirmed', 'refined', 'invalidated'])) })),
    entities: z.array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        type: z.string(),
        aliases: z.array(z.string()),
        surface: z.string(),
        merged_into: z.uuid().nullable(),
        forgotten_at: nullableInstant,
      }),
    ),
  })
  .meta({ id: 'MemoryExpanded' });

export const memoryPageSchema = z
  .object({ memories: z.array(memorySchema), next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last' }) })
  .meta({ id: 'MemoryPage' });

export const stageRunSchema = z.object({
  id: z.string(),
  stage: z.string(),
  attempt: z.number().int(),
  status: z.string(),
  workflow_id: z.string(),
  workflow_run_id: z.string(),
  input: z.unknown(),
  output: z.unknown(),
  model_calls: z.number().int(),
  tokens_in: z.number().int(),
  tokens_out: z.number().int(),
  started_at: instant,
  finished_at: nullableInstant,
  duration_ms: z.number().int().nullable(),
  error: z.string().nullable(),
});

export const memoryStagesSchema = z.object({ episode_id: z.uuid(), status: z.string(), stages: z.array(stageRunSchema) }).meta({ id: 'MemoryStages' });

export const memoryRetrySchema = z
  .object({ id: z.uuid(), workflow_id: z.string(), status: z.literal('pending'), started: z.boolean() })
  .meta({ id: 'MemoryRetry' });

/** `POST /v1/memories/:id/forget` and `DELETE /v1/memories/:id` (core/memories/forget.ts). */
export const memoryForgetSchema = z
  .object({ id: z.uuid(), forgotten_at: instant, facts_forgotten: z.number().int(), entities_forgotten: z.number().int() })
  .meta({ id: 'MemoryForget', example: { id: exampleId, forgotten_at: '2026-01-11T10:00:00.000Z', facts_forgotten: 1, entities_forgotten: 0 } });

export const memoryRestoreSchema = z
  .object({
    id: z.uuid(),
    restored: z.boolean(),
    facts_restored: z.number().int(),
    entities_restored: z.number().int(),
    entities_left_forgotten: z.array(z.uuid()),
  })
  .meta({ id: 'MemoryRestore' });
