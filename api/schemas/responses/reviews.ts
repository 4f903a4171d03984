import { z } from 'zod';
import { REVIEW_DECISIONS, REVIEW_KINDS } from '../../../core/reviews/contracts.js';
import { instant, nullableInstant } from './common.js';

/** core/reviews/read.ts ReviewView. */
export const reviewSchema = z
  .object({
    id: z.uuid(),
    namespace: z.string(),
    kind: z.enum(REVIEW_KINDS),
    status: z.string(),
    title: z.string(),
    payload: z.record(z.string(), z.unknown()),
    fact_ids: z.array(z.uuid()),
    entity_ids: z.array(z.uuid()),
    episode_id: z.uuid().nullable(),
    decision: z.string().nullable(),
    decided_at: nullableInstant,
    decided_by: z.string().nullable(),
    resolution: z.unknown(),
    escalated_at: nullableInstant,
    workflow_id: z.string().nullable(),
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: 'Review' });

export const reviewPageSchema = z.object({ reviews: z.array(reviewSchema), next_cursor: z.string().nullable() }).meta({ id: 'ReviewPage' });

/** `202` of approve / reject / resolve: the decision was signalled to the item's workflow. */
export const reviewDecisionAckSchema = z
  .object({ id: z.uuid(), workflow_id: z.string(), decision: z.enum(REVIEW_DECISIONS), status: z.string() })
  .meta({ id: 'ReviewDecisionAck' });
