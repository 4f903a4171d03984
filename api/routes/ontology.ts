import { Router } from 'express';
import { z } from 'zod';
import { describeOntology } from '../../core/domain/ontology.js';
import { DECAY_CLASSES, ENTITY_TYPES, PREDICATE_FAMILIES } from '../../core/domain/types.js';

/** Response of `GET /v1/ontology` (the OpenAPI document is generated from it). */
export const ontologyResponseSchema = z.object({
  node_types: z.array(z.object({ name: z.enum(ENTITY_TYPES), description: z.string() })),
  predicates: z.array(
    z.object({
      name: z.string(),
      family: z.enum(PREDICATE_FAMILIES),
      single_valued: z.boolean().describe('a new value supersedes the old one'),
      decay_class: z.enum(DECAY_CLASSES),
      description: z.string(),
    }),
  ),
  families: z.array(z.object({ name: z.enum(PREDICATE_FAMILIES), description: z.string(), predicates: z.array(z.string()) })),
  decay_classes: z.array(z.object({ name: z.enum(DECAY_CLASSES), half_life_days: z.number().nullable().describe('null: never fades') })),
  open_world: z.boolean().describe('predicates outside the table are accepted (multi-valued, slow decay)'),
});
export type OntologyResponse = z.infer<typeof ontologyResponseSchema>;

/** `GET /v1/ontology` (any key): node types, predicates, families and decay classes, from the code's own tables. */
export function ontologyRoutes(): Router {
  const router = Router();
  const body: OntologyResponse = ontologyResponseSchema.parse(describeOntology());
  router.get('/ontology', (_req, res) => {
    res.json(body);
  });
  return router;
}
