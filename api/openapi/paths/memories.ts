import { z } from 'zod';
import { batchSchema, listQuerySchema, memoryBodySchema, memoryExpandSchema } from '../../routes/memories.js';
import { uuidSchema } from '../../schemas/common.js';
import {
  acceptedBatchSchema,
  acceptedMemorySchema,
  memoryDetailSchema,
  memoryExpandedSchema,
  memoryForgetSchema,
  memoryPageSchema,
  memoryRestoreSchema,
  memoryRetrySchema,
  memoryStagesSchema,
} from '../../schemas/responses/memories.js';
import { json, jsonBody, type ApiCatalogue } from '../registry.js';

const tags = ['Memories'];
const idParams = z.object({ id: uuidSchema });
/** Writes carry an optional idempotency key: a retry with the same key (within 24 h) gets the first answer, stored once. */
const idempotencyHeaders = z.object({
  'idempotency-key': z.string().optional().meta({ description: '1-255 printable ASCII characters (a UUID), unique per logical write; reuse it when retrying that write. Replays carry `Idempotent-Replayed: true`' }),
});
const example = { content: 'Nadia moved to Lisbon last week.', user_id: 'nadia', namespace: 'default' };

export function memoryPaths(api: ApiCatalogue): void {
  api.add({
    method: 'post',
    path: '/v1/memories',
    tags,
    summary: 'Write a memory',
    description: 'Stores an episode and starts its extraction; answers as soon as the row is committed.',
    request: { headers: idempotencyHeaders, body: jsonBody(memoryBodySchema, { example }) },
    ok: { 202: json('Stored; extraction pending', acceptedMemorySchema) },
    errors: [403, 409, 422, 429, 503],
  });
  api.add({
    method: 'post',
    path: '/v1/memories/batch',
    tags,
    summary: 'Write up to 100 memories at once',
    request: { headers: idempotencyHeaders, body: jsonBody(batchSchema, { example: { memories: [example, { content: 'Nadia prefers tea.', user_id: 'nadia' }] } }) },
    ok: { 202: json('Stored, in order; extraction pending', acceptedBatchSchema) },
    errors: [403, 409, 422, 429, 503],
  });
  api.add({
    method: 'get',
    path: '/v1/memories',
    tags,
    summary: 'List memories, newest first',
    request: { query: listQuerySchema },
    ok: { 200: json('One page', memoryPageSchema) },
    errors: [400, 403],
  });
  api.add({
    method: 'get',
    path: '/v1/memories/{id}',
    tags,
    summary: 'Read a memory and what its extraction produced',
    request: { params: idParams, query: memoryExpandSchema },
    ok: { 200: json('The memory (with `facts` and `entities` objects when `expand=facts`)', z.union([memoryExpandedSchema, memoryDetailSchema])) },
    errors: [400, 404],
  });
  api.add({
    method: 'get',
    path: '/v1/memories/{id}/stages',
    tags,
    summary: 'The extraction stages run for a memory',
    request: { params: idParams },
    ok: { 200: json('Stage runs, oldest first', memoryStagesSchema) },
    errors: [404],
  });
  api.add({
    method: 'post',
    path: '/v1/memories/{id}/retry',
    tags,
    summary: 'Retry a failed extraction',
    request: { params: idParams },
    ok: { 202: json('Pending again; `started` tells whether its workflow started now', memoryRetrySchema) },
    errors: [404, 409],
  });
  for (const [method, path] of [
    ['post', '/v1/memories/{id}/forget'],
    ['delete', '/v1/memories/{id}'],
  ] as const) {
    api.add({
      method,
      path,
      tags,
      summary: 'Forget a memory (soft delete) and what only it supported',
      request: { params: idParams },
      ok: { 200: json('Forgotten (idempotent)', memoryForgetSchema) },
      errors: [404],
    });
  }
  api.add({
    method: 'post',
    path: '/v1/memories/{id}/restore',
    tags,
    summary: 'Restore a forgotten memory (operator)',
    request: { params: idParams },
    ok: { 200: json('Restored', memoryRestoreSchema) },
    errors: [403, 404],
  });
}
