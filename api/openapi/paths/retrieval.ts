import { contextBodySchema, contextQuerySchema } from '../../routes/context.js';
import { searchBodySchema } from '../../routes/search.js';
import { contextBlockSchema, searchResponseSchema } from '../../schemas/responses/retrieval.js';
import { json, jsonBody, type ApiCatalogue } from '../registry.js';

const tags = ['Retrieval'];

export function retrievalPaths(api: ApiCatalogue): void {
  api.add({
    method: 'post',
    path: '/v1/search',
    tags,
    summary: 'Hybrid search (vector, keyword, graph, temporal) fused by weighted RRF',
    read: true,
    request: { body: jsonBody(searchBodySchema, { example: { query: 'where does Nadia work?', user_id: 'nadia', k: 5 } }) },
    ok: { 200: json('Results, best first', searchResponseSchema) },
    errors: [403],
  });
  api.add({
    method: 'get',
    path: '/v1/context',
    tags,
    summary: 'A prompt-ready block of current facts and relevant memories',
    request: { query: contextQuerySchema },
    ok: { 200: json('The context block', contextBlockSchema) },
    errors: [400, 403],
  });
  api.add({
    method: 'post',
    path: '/v1/context',
    tags,
    summary: 'A prompt-ready block (JSON body form, with a custom recipe)',
    read: true,
    request: { body: jsonBody(contextBodySchema, { example: { query: 'plan the trip', user_id: 'nadia', max_tokens: 800 }, required: false }) },
    ok: { 200: json('The context block', contextBlockSchema) },
    errors: [403],
  });
}
