import { z } from 'zod';
import { instant, nullableInstant } from './common.js';

/** core/threads/rows.ts ThreadView. */
export const threadSchema = z
  .object({
    id: z.uuid(),
    namespace: z.string(),
    title: z.string(),
    participants: z.array(z.string()),
    created_by: z.string(),
    created_at: instant,
    updated_at: instant,
    last_message_at: nullableInstant,
    last_sender: z.string().nullable(),
    last_seq: z.number().int().meta({ description: 'seq of the newest message; 0 while there is none' }),
    message_count: z.number().int(),
  })
  .meta({
    id: 'Thread',
    example: {
      id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
      namespace: 'default',
      title: 'Trip to Lisbon',
      participants: ['planner', 'booker'],
      created_by: 'key:6c1d1c52-8f0e-4a53-9b36-2f4c1d8e9a10',
      created_at: '2026-01-10T09:00:00.000Z',
      updated_at: '2026-01-10T09:05:00.000Z',
      last_message_at: '2026-01-10T09:05:00.000Z',
      last_sender: 'planner',
      last_seq: 1,
      message_count: 1,
    },
  });

/** core/threads/rows.ts ThreadMessageView; also the `data` of each SSE `message` event. */
export const threadMessageSchema = z
  .object({
    id: z.uuid(),
    thread_id: z.uuid(),
    seq: z.number().int().meta({ description: 'Increasing cursor: the SSE event id, and `after` of the next page' }),
    sender: z.string(),
    content: z.string(),
    created_at: instant,
  })
  .meta({ id: 'ThreadMessage' });

export const threadPageSchema = z.object({ threads: z.array(threadSchema), next_cursor: z.string().nullable() }).meta({ id: 'ThreadPage' });

/** `GET /v1/threads/:id`: the thread and one page of its messages (core/threads/read.ts ThreadWithMessages). */
export const threadWithMessagesSchema = threadSchema
  .extend({
    messages: z.array(threadMessageSchema),
    next_after: z.number().int().nullable().meta({ description: 'Pass as `after` for the next page; null when this page reached the newest message' }),
  })
  .meta({ id: 'ThreadWithMessages' });
