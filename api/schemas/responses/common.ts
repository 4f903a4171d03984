import { z } from 'zod';
import type { ErrorCode } from '../../errors.js';

/** An instant as the API renders it (`Date.toISOString()`). */
export const instant = z.iso.datetime({ offset: true });
export const nullableInstant = instant.nullable();

const ERROR_CODES = [
  'invalid_input',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'idempotency_mismatch',
  'task_write_limit',
  'unavailable',
  'internal',
] as const satisfies readonly ErrorCode[];

/** The one error shape of every route (api/errors.ts errorHandler). */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: `Machine-readable cause; one of ${ERROR_CODES.join(', ')} (new codes may be added)`, example: 'invalid_input' }),
      message: z.string(),
      details: z
        .unknown()
        .meta({ description: 'For invalid_input: `[{field, message, code}]`, one per invalid field; otherwise an object or null' }),
    }),
  })
  .meta({
    id: 'Error',
    example: { error: { code: 'invalid_input', message: 'Invalid input', details: [{ field: 'content', message: 'must not be empty', code: 'custom' }] } },
  });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Acknowledgement of work handed to a Temporal workflow. */
export const workflowAckSchema = z.object({ id: z.string(), workflow_id: z.string() });
