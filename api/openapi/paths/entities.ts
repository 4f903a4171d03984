import { z } from 'zod';
import { byIdQuerySchema, idParams, listQuerySchema, neighborhoodQuerySchema } from '../../routes/entities.js';
import { uuidSchema } from '../../schemas/common.js';
import { entityListSchema, entityMemorySchema, neighborhoodSchema } from '../../schemas/responses/entities.js';
import { forgottenSchema, restoredSchema } from '../../schemas/responses/facts.js';
import { json, type ApiCatalogue } from '../registry.js';

const tags = ['Entities'];

export function entityPaths(api: ApiCatalogue): void {
  api.add({
    method: 'get',
    path: '/v1/entities',
    tags,
    summary: 'List or look up entities by name',
    request: { query: listQuerySchema },
    ok: { 200: json('Entities (best match first when `q` is given)', entityListSchema) },
    errors: [400, 403],
  });
  api.add({
    method: 'get',
    path: '/v1/entities/{id}',
    tags,
    summary: 'Everything known about one entity',
    request: { params: idParams, query: byIdQuerySchema },
    ok: { 200: json('The entity and its facts', entityMemorySchema) },
    errors: [400, 403, 404],
  });
  api.add({
    method: 'get',
    path: '/v1/entities/{id}/neighborhood',
    tags,
    summary: 'The graph around an entity (up to 3 hops)',
    request: { params: idParams, query: neighborhoodQuerySchema },
    ok: { 200: json('Nodes and edges', neighborhoodSchema) },
    errors: [400, 403, 404],
  });
  api.add({
    method: 'post',
    path: '/v1/entities/{id}/forget',
    tags,
    summary: 'Forget an entity and the facts about it (soft delete, audited)',
    request: { params: z.object({ id: uuidSchema }) },
    ok: { 200: json('Forgotten (idempotent)', forgottenSchema) },
    errors: [404],
  });
  api.add({
    method: 'post',
    path: '/v1/entities/{id}/restore',
    tags,
    summary: 'Restore a forgotten entity (operator)',
    request: { params: z.object({ id: uuidSchema }) },
    ok: { 200: json('Restored, or `restored: false` when it was not forgotten', restoredSchema) },
    errors: [403, 404, 409],
  });
}
