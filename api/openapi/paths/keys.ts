import { z } from 'zod';
import { listQuerySchema, newKeySchema } from '../../routes/keys.js';
import { uuidSchema } from '../../schemas/common.js';
import { apiKeyListSchema, apiKeySchema, createdApiKeySchema } from '../../schemas/responses/keys.js';
import { json, jsonBody, type ApiCatalogue } from '../registry.js';

const tags = ['Keys'];

export function keyPaths(api: ApiCatalogue): void {
  api.add({
    method: 'post',
    path: '/v1/keys',
    tags,
    summary: 'Create an API key of one namespace (admin); the secret is shown once',
    request: { body: jsonBody(newKeySchema, { example: { namespace: 'acme', role: 'agent', label: 'support bot' } }) },
    ok: { 201: json('The key, with its secret', createdApiKeySchema) },
    errors: [403],
  });
  api.add({ method: 'get', path: '/v1/keys', tags, summary: 'List keys, without secrets (admin)', request: { query: listQuerySchema }, ok: { 200: json('Keys, newest first', apiKeyListSchema) }, errors: [400, 403] });
  api.add({
    method: 'delete',
    path: '/v1/keys/{id}',
    tags,
    summary: 'Revoke a key at once (admin): its next request is 401',
    request: { params: z.object({ id: uuidSchema }) },
    ok: { 200: json('The revoked key', apiKeySchema) },
    errors: [400, 403, 404],
  });
}
