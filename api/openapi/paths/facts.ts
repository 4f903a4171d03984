import { z } from 'zod';
import { factCorrectionSchema } from '../../routes/corrections.js';
import { factBodySchema, factsQuerySchema } from '../../routes/facts.js';
import { uuidSchema } from '../../schemas/common.js';
import { acceptedFactSchema, factListSchema, forgottenSchema, listedFactSchema, restoredSchema } from '../../schemas/responses/facts.js';
import { json, jsonBody, type ApiCatalogue } from '../registry.js';

const tags = ['Facts'];
const idParams = z.object({ id: uuidSchema });

export function factPaths(api: ApiCatalogue): void {
  api.add({
    method: 'get',
    path: '/v1/facts',
    tags,
    summary: 'List facts by subject, predicate or family, at any instant',
    request: { query: factsQuerySchema },
    ok: { 200: json('Facts, most certain first', factListSchema) },
    errors: [400, 403],
  });
  api.add({
    method: 'post',
    path: '/v1/facts',
    tags,
    summary: 'State a fact explicitly',
    description: 'Recorded as an episode and sent through the same stages and gates as extracted facts.',
    request: {
      body: jsonBody(factBodySchema, { example: { user_id: 'nadia', fact: { subject: 'Nadia', subject_type: 'person', predicate: 'works_at', object: 'Orbital', object_type: 'organization' } } }),
    },
    ok: { 202: json('Stored as an episode; extraction pending', acceptedFactSchema) },
    errors: [403, 503],
  });
  api.add({
    method: 'patch',
    path: '/v1/facts/{id}',
    tags,
    summary: 'Correct a fact (audited; the old values are kept in previous_values)',
    request: { params: idParams, body: jsonBody(factCorrectionSchema, { example: { value: 'Lisbon', reason: 'the user corrected it' } }) },
    ok: { 200: json('The corrected fact', listedFactSchema) },
    errors: [404, 409],
  });
  for (const [method, path] of [
    ['delete', '/v1/facts/{id}'],
    ['post', '/v1/facts/{id}/forget'],
  ] as const) {
    api.add({ method, path, tags, summary: 'Forget a fact (soft delete, audited)', request: { params: idParams }, ok: { 200: json('Forgotten (idempotent)', forgottenSchema) }, errors: [404] });
  }
  api.add({
    method: 'post',
    path: '/v1/facts/{id}/restore',
    tags,
    summary: 'Restore a forgotten fact (operator)',
    request: { params: idParams },
    ok: { 200: json('Restored, or `restored: false` when it was not forgotten', restoredSchema) },
    errors: [403, 404],
  });
}
