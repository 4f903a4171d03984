import { z } from 'zod';
import { RESULT_KINDS, SIGNALS } from '../../../core/retrieval/types.js';
import { instant, nullableInstant } from './common.js';
import { compactFactSchema } from './facts.js';

/** One fused hit of `POST /v1/search` (core/retrieval/types.ts SearchResult). */
export const searchResultSchema = z
  .object({
    type: z.enum(RESULT_KINDS),
    id: z.uuid(),
    score: z.number(),
    snippet: z.string(),
    matched_by: z.array(z.enum(SIGNALS)),
    episode_ids: z.array(z.uuid()),
    occurred_at: nullableInstant,
    speaker: z.string().nullable().optional().meta({ description: 'Who said it (episodes only)' }),
  })
  .meta({ id: 'SearchResult' });

export const searchResponseSchema = z
  .object({ results: z.array(searchResultSchema), recipe: z.string().meta({ description: 'The recipe that ranked the results' }) })
  .meta({
    id: 'SearchResponse',
    example: {
      results: [
        {
          type: 'fact',
          id: '5d1c2a77-3f0b-4a65-8f3e-0c7a4b9d2e10',
          score: 0.032,
          snippet: 'Nadia works at Orbital',
          matched_by: ['vector', 'keyword'],
          episode_ids: ['0b6f3c1e-6a0e-4c1f-9d7e-2f2d8c5e9a11'],
          occurred_at: '2026-01-10T09:00:00.000Z',
        },
      ],
      recipe: 'default',
    },
  });

const contextMemorySchema = z.object({
  type: z.enum(['episode', 'fact']),
  id: z.uuid(),
  text: z.string(),
  speaker: z.string().nullable(),
  occurred_at: nullableInstant,
  score: z.number(),
  matched_by: z.array(z.string()),
  episode_ids: z.array(z.uuid()),
  status: z.enum(['current', 'partly_superseded', 'superseded']).meta({
    description: "superseded: every statement of this memory has since stopped holding; partly_superseded: some have, others still hold",
  }),
  superseded_by: z.object({ fact_id: z.uuid().nullable(), fact_text: z.string().nullable(), at: instant }).nullable(),
});

/** `GET|POST /v1/context` (core/retrieval/context.ts ContextBlock). */
export const contextBlockSchema = z
  .object({
    text: z.string().meta({ description: 'The prompt-ready block' }),
    facts: z.array(compactFactSchema),
    memories: z.array(contextMemorySchema),
    token_count: z.number().int(),
  })
  .meta({
    id: 'ContextBlock',
    example: {
      text: 'Known facts (current, most certain first):\n- Nadia works at Orbital (confirmed 2 days ago)',
      facts: [],
      memories: [],
      token_count: 18,
    },
  });
