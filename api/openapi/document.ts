import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { entityPaths } from './paths/entities.js';
import { factPaths } from './paths/facts.js';
import { keyPaths } from './paths/keys.js';
import { memoryPaths } from './paths/memories.js';
import { ontologyAndVersionPaths } from './paths/ontology.js';
import { operationPaths } from './paths/operations.js';
import { retrievalPaths } from './paths/retrieval.js';
import { reviewPaths } from './paths/reviews.js';
import { sessionPaths } from './paths/sessions.js';
import { taskPaths } from './paths/tasks.js';
import { threadPaths } from './paths/threads.js';
import { userPaths } from './paths/users.js';
import { ApiCatalogue } from './registry.js';

/** Every resource's catalogue entries, in the order the reference lists them. */
const RESOURCES = [
  memoryPaths,
  factPaths,
  retrievalPaths,
  entityPaths,
  userPaths,
  sessionPaths,
  taskPaths,
  reviewPaths,
  threadPaths,
  keyPaths,
  ontologyAndVersionPaths,
  operationPaths,
];

/** The catalogue of every documented route (also what the route-coverage test compares with the router). */
export function buildCatalogue(): ApiCatalogue {
  const api = new ApiCatalogue();
  for (const register of RESOURCES) register(api);
  return api;
}

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/** The OpenAPI 3.1 document of the API, generated from the zod schemas the routes validate with. */
export function buildOpenApiDocument(): OpenApiDocument {
  const generator = new OpenApiGeneratorV31(buildCatalogue().registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Mnemo API',
      version: '1',
      description:
        'Durable long-term memory for AI agents. Every `/v1` route takes `Authorization: Bearer <key>`; errors are `{error: {code, message, details}}`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
  });
}
