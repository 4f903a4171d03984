import type { RequestHandler } from 'express';
import { HttpError } from './errors.js';

/** Nesting past this is refused: no Mnemo input needs it, and deep JSON costs every consumer (zod, jsonb, logging). */
export const MAX_JSON_DEPTH = 64;
const MAX_REPORTED = 20;

/** As zodDetails renders an issue (`code` as a zod refinement's). */
type Problem = { field: string; message: string; code: 'custom' };
/** In a `u` regexp a well-formed pair is one code point, so this matches only unpaired surrogates. */
const UNPAIRED_SURROGATE = /\p{Surrogate}/u;

/** An unpaired surrogate cannot be encoded as UTF-8; NUL cannot be stored in PostgreSQL text or jsonb. */
function textProblem(s: string, stored: boolean): string | null {
  if (UNPAIRED_SURROGATE.test(s)) return 'must not contain unpaired surrogate code units (not valid Unicode text)';
  if (stored && s.includes('\u0000')) return 'must not contain NUL characters';
  return null;
}

/**
 * Every string (and object key) of a parsed JSON value that PostgreSQL could
 * not take, walked without recursion. `stored`: the value is written (a NUL is
 * refused too); a read's search text may hold one, the read path drops it.
 */
export function illFormedText(root: unknown, rootField: string, stored = false): Problem[] {
  const problems: Problem[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: rootField, depth: 0 }];
  while (stack.length > 0 && problems.length < MAX_REPORTED) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const message = textProblem(value, stored);
      if (message) problems.push({ field: path || '(body)', message, code: 'custom' });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      problems.push({ field: path || '(body)', message: `must not be nested more than ${MAX_JSON_DEPTH} levels deep`, code: 'custom' });
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      const keyMessage = textProblem(key, stored);
      if (keyMessage) problems.push({ field: childPath, message: `key ${keyMessage}`, code: 'custom' });
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return problems;
}

/**
 * Refuses (400) a JSON body or query string holding text PostgreSQL cannot
 * take (unpaired surrogates; NUL in what a write stores) or absurdly deep nesting, once for every
 * route: otherwise each field not checked by its own schema would reach the
 * database and fail there as a 500. Mounted after the JSON parser.
 *
 * A query string's values name and filter things (ids, names, actors, cursors), and each reaches the
 * database as text, so a NUL in any of them is refused too (`GET /v1/entities?q=a%00b` answered 500, found
 * by fuzz-routes); only `query`, the free text of `GET /v1/context`, keeps it: the read path drops it.
 */
export const wellFormedInput: RequestHandler = (req, _res, next) => {
  const read = req.method === 'GET' || (req.method === 'POST' && (req.path === '/search' || req.path === '/context'));
  const { query: freeText, ...filters } = req.query;
  const problems = [
    ...illFormedText(req.body, '', !read),
    ...illFormedText(filters, 'query', true),
    ...illFormedText(freeText, 'query.query'),
  ];
  if (problems.length > 0) return next(new HttpError('invalid_input', 'Invalid input', problems));
  next();
};
