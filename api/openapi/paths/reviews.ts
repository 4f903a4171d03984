import { z } from 'zod';
import { listQuerySchema, plainBodySchema, resolveBodySchema } from '../../routes/reviews.js';
import { uuidSchema } from '../../schemas/common.js';
import { reviewDecisionAckSchema, reviewPageSchema, reviewSchema } from '../../schemas/responses/reviews.js';
import { json, jsonBody, type ApiCatalogue } from '../registry.js';

const tags = ['Reviews'];
const idParams = z.object({ id: uuidSchema });

export function reviewPaths(api: ApiCatalogue): void {
  api.add({
    method: 'get',
    path: '/v1/reviews',
    tags,
    summary: 'List review items (operator)',
    request: { query: listQuerySchema },
    ok: { 200: json('One page, newest first', reviewPageSchema) },
    errors: [400, 403],
  });
  api.add({ method: 'get', path: '/v1/reviews/{id}', tags, summary: 'A review item (operator)', request: { params: idParams }, ok: { 200: json('The item', reviewSchema) }, errors: [403, 404] });
  const decisions: Array<[string, z.ZodType, boolean, string]> = [
    ['approve', plainBodySchema, false, 'Approve the proposal'],
    ['reject', plainBodySchema, false, 'Reject the proposal'],
    ['resolve', resolveBodySchema, true, 'Resolve a conflict by keeping one fact'],
  ];
  for (const [name, body, required, summary] of decisions) {
    api.add({
      method: 'post',
      path: `/v1/reviews/{id}/${name}`,
      tags,
      summary: `${summary} (operator)`,
      request: { params: idParams, body: jsonBody(body, { required }) },
      ok: { 202: json('Signalled to the review workflow; the item shows the decision once applied', reviewDecisionAckSchema) },
      errors: [403, 404, 409, 503],
    });
  }
}
