import { z } from 'zod';
import { eraseQuerySchema, exportQuerySchema, profileQuerySchema, userParams } from '../../routes/users.js';
import { erasureAckSchema, erasureSchema, userExportSchema, userProfileSchema } from '../../schemas/responses/users.js';
import { json, type ApiCatalogue } from '../registry.js';

const tags = ['Users'];

export function userPaths(api: ApiCatalogue): void {
  api.add({
    method: 'get',
    path: '/v1/users/{user_id}/profile',
    tags,
    summary: "The user's active facts, by family",
    request: { params: userParams, query: profileQuerySchema },
    ok: { 200: json('The profile', userProfileSchema) },
    errors: [400, 403],
  });
  api.add({
    method: 'get',
    path: '/v1/users/{user_id}/export',
    tags,
    summary: 'Everything stored about the user, as one streamed JSON document',
    description: 'Confidential rows only for operator keys; restricted rows never. Sent as an attachment.',
    request: { params: userParams, query: exportQuerySchema },
    ok: { 200: json('The export', userExportSchema) },
    errors: [400, 403],
  });
  api.add({
    method: 'delete',
    path: '/v1/users/{user_id}',
    tags,
    summary: "Erase the user's data (operator): starts the erasure workflow",
    request: { params: userParams, query: eraseQuerySchema },
    ok: { 202: json('Erasure running (or already complete with nothing new to erase)', erasureAckSchema) },
    errors: [400, 403, 404, 503],
  });
  api.add({
    method: 'get',
    path: '/v1/erasures/{id}',
    tags,
    summary: "An erasure's progress (operator)",
    request: { params: z.object({ id: z.string().meta({ description: 'The erasure workflow id, `erase:<namespace>:<user_id>`', example: 'erase:default:nadia' }) }) },
    ok: { 200: json('The erasure', erasureSchema) },
    errors: [403, 404],
  });
}
