import { z } from 'zod';

/**
 * Any JSON value. `z.json()` is recursive (a lazy union of itself), which the
 * OpenAPI generator cannot walk: the `type` list states the same thing in one
 * line of JSON Schema, and validation is still z.json()'s.
 */
export const jsonValueSchema = z.json().meta({
  type: ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'],
  description: 'Any JSON value',
});
