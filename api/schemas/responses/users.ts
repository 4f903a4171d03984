import { z } from 'zod';
import { ERASURE_STEPS } from '../../../core/governance/contracts.js';
import { instant, nullableInstant } from './common.js';
import { entityRefSchema, factSchema } from './facts.js';

/** `GET /v1/users/:user_id/profile` (core/retrieval/profile.ts UserProfile). */
export const userProfileSchema = z
  .object({
    user_id: z.string(),
    namespace: z.string(),
    entities: z.array(entityRefSchema).meta({ description: 'The entities that stand for the user (empty when none is known)' }),
    families: z.record(z.string(), z.array(factSchema)).meta({ description: 'Active facts by predicate family (every family present, possibly empty)' }),
    fact_count: z.number().int(),
  })
  .meta({ id: 'UserProfile' });

/**
 * `GET /v1/users/:user_id/export`: one JSON document streamed section by
 * section (core/governance/export.ts); each section an array of stored rows.
 */
export const userExportSchema = z
  .object({
    namespace: z.string(),
    user_id: z.string(),
    exported_at: instant,
    includes: z.object({ confidential: z.boolean(), forgotten: z.boolean() }),
    episodes: z.array(z.record(z.string(), z.unknown())),
    facts: z.array(z.record(z.string(), z.unknown())),
    entities: z.array(z.record(z.string(), z.unknown())),
    work_sessions: z.array(z.record(z.string(), z.unknown())),
    session_turns: z.array(z.record(z.string(), z.unknown())),
    session_summaries: z.array(z.record(z.string(), z.unknown())),
    persistent_tasks: z.array(z.record(z.string(), z.unknown())),
    task_bursts: z.array(z.record(z.string(), z.unknown())),
    review_items: z.array(z.record(z.string(), z.unknown())),
    audit: z.array(z.record(z.string(), z.unknown())),
    counts: z.record(z.string(), z.number().int()),
    withheld: z.object({ reason: z.string(), by_sensitivity: z.record(z.string(), z.unknown()) }),
  })
  .meta({ id: 'UserExport' });

/** `202` of `DELETE /v1/users/:user_id`: the erasure workflow runs (or already completed). */
export const erasureAckSchema = z
  .object({ id: z.string(), workflow_id: z.string(), status: z.enum(['running', 'completed']) })
  .meta({ id: 'ErasureAck', example: { id: 'erase:default:nadia', workflow_id: 'erase:default:nadia', status: 'running' } });

/** `GET /v1/erasures/:id` (core/governance/erasureRecord.ts ErasureView). */
export const erasureSchema = z
  .object({
    id: z.string(),
    namespace: z.string(),
    user_hash: z.string(),
    status: z.enum(['running', 'completed', 'failed']),
    step: z.enum(ERASURE_STEPS).nullable(),
    counts: z.record(z.string(), z.number()),
    batches: z.number().int(),
    requested_by: z.string().nullable(),
    started_at: instant,
    finished_at: nullableInstant,
    error: z.string().nullable(),
  })
  .meta({ id: 'Erasure' });
