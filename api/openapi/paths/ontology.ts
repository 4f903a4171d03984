import { z } from 'zod';
import { memoryHistoryResponseSchema, memoryPatchSchema, memoryUpdateResponseSchema } from '../../routes/memoryVersions.js';
import { ontologyResponseSchema } from '../../routes/ontology.js';
import { uuidSchema } from '../../schemas/common.js';
import { json, jsonBody, type ApiCatalogue } from '../registry.js';

const idParams = z.object({ id: uuidSchema });

/** The ontology and memory versions (their response schemas live beside their routes). */
export function ontologyAndVersionPaths(api: ApiCatalogue): void {
  api.add({
    method: 'get',
    path: '/v1/ontology',
    tags: ['Ontology'],
    summary: 'Node types, predicates, families and decay classes',
    ok: { 200: json('The ontology', ontologyResponseSchema.meta({ id: 'Ontology' })) },
  });
  const update = memoryUpdateResponseSchema.meta({ id: 'MemoryUpdate' });
  api.add({
    method: 'patch',
    path: '/v1/memories/{id}',
    tags: ['Memories'],
    summary: 'Update a memory (a new version); new content is extracted again',
    request: { params: idParams, body: jsonBody(memoryPatchSchema, { example: { content: 'Nadia moved to Porto last week.' } }) },
    ok: { 200: json('Metadata only, or nothing changed', update), 202: json('New content: its extraction is pending', update) },
    errors: [404, 409],
  });
  api.add({
    method: 'get',
    path: '/v1/memories/{id}/history',
    tags: ['Memories'],
    summary: "A memory's versions, oldest first",
    request: { params: idParams },
    ok: { 200: json('The versions', memoryHistoryResponseSchema.meta({ id: 'MemoryHistory' })) },
    errors: [404],
  });
}
