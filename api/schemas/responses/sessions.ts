import { z } from 'zod';
import { TURN_ROLES } from '../../../core/sessions/rows.js';
import { instant, nullableInstant } from './common.js';

/** `202` of `POST /v1/sessions/:task_id/turns`. */
export const turnAckSchema = z
  .object({ task_id: z.string(), turn_index: z.number().int(), workflow_id: z.string() })
  .meta({ id: 'TurnAck', example: { task_id: 'ticket-4821', turn_index: 3, workflow_id: 'session:default:ticket-4821' } });

/** `GET /v1/sessions/:task_id` (core/sessions/read.ts SessionView). */
export const sessionViewSchema = z
  .object({
    task_id: z.string(),
    status: z.enum(['active', 'archived']),
    summary: z.string().nullable(),
    turns: z.array(z.object({ turn_index: z.number().int(), role: z.enum(TURN_ROLES), content: z.string(), tool_result: z.unknown(), created_at: instant })),
    turn_count: z.number().int(),
    last_activity_at: instant,
    expires_at: nullableInstant,
  })
  .meta({ id: 'Session' });
