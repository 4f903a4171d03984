import { OpenAPIRegistry, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { errorBodySchema } from '../schemas/responses/common.js';

/** Statuses an error of the API can have (api/errors.ts). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503;

const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'invalid_input: a field is invalid; `details` lists each one as `{field, message, code}`',
  401: 'unauthorized: missing, unknown or revoked bearer key',
  403: 'forbidden: the key may not use this namespace, or lacks the role',
  404: 'not_found: no such row in the namespaces this key may use (another namespace\'s rows are 404 too, never 403)',
  409: 'conflict: the request is well-formed but contradicts the current state',
  413: 'payload_too_large: the body exceeds BODY_LIMIT',
  415: 'unsupported_media_type: a body that is not application/json',
  422: 'idempotency_mismatch: this Idempotency-Key was used with another request body',
  429: 'rate_limited or task_write_limit: too many requests (see Retry-After when present)',
  500: 'internal: an unexpected error (logged with the request id)',
  503: 'unavailable: overloaded, or Temporal unreachable; nothing was stored. Retry after the `Retry-After` seconds',
};

const retryAfterHeader = z.object({
  'Retry-After': z.string().meta({ description: 'Seconds to wait before retrying', example: '5' }),
});

function errorResponse(status: ErrorStatus): ResponseConfig {
  return {
    description: ERROR_DESCRIPTIONS[status],
    ...(status === 503 || status === 429 ? { headers: retryAfterHeader } : {}),
    content: { 'application/json': { schema: errorBodySchema } },
  };
}

export function json(description: string, schema: z.ZodType, example?: unknown): ResponseConfig {
  return { description, content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } } };
}

export function jsonBody(schema: z.ZodType, options: { example?: unknown; required?: boolean } = {}): NonNullable<RouteConfig['request']>['body'] {
  return {
    required: options.required ?? true,
    content: { 'application/json': { schema, ...(options.example === undefined ? {} : { example: options.example }) } },
  };
}

export interface ApiRoute extends Omit<RouteConfig, 'responses' | 'method'> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Success responses, by status. */
  ok: Record<number, ResponseConfig>;
  /** Errors this route can answer beyond the ones every `/v1` route can (401, 429, 500; 400/413/415 with a body; 503 for reads). */
  errors?: ErrorStatus[];
  /** Routes outside `/v1`: no bearer key, none of the `/v1` middleware errors. */
  public?: boolean;
  /** Reads are admitted by the read gate (503 with Retry-After under overload). */
  read?: boolean;
}

/** The statuses a route answers: its own, plus what the `/v1` middleware (auth, JSON-only body, overload guard) adds. */
function errorStatuses(route: ApiRoute): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>(route.errors ?? []);
  if (!route.public) {
    // Every /v1 request passes authentication and the per-key rate limit.
    statuses.add(401).add(429).add(500);
    if (route.request?.body) statuses.add(413).add(415).add(400);
    if (route.read ?? route.method === 'get') statuses.add(503);
  }
  return [...statuses].sort((a, b) => a - b);
}

/**
 * The catalogue of routes: one `add` per route, each with the same zod
 * schemas the route parses with, its success bodies and every error status.
 */
export class ApiCatalogue {
  readonly registry = new OpenAPIRegistry();
  readonly routes: Array<{ method: string; path: string }> = [];

  constructor() {
    this.registry.registerComponent('securitySchemes', 'bearer', {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key: MNEMO_API_KEY (admin) or a key from POST /v1/keys, as `Authorization: Bearer <key>`',
    });
  }

  add(route: ApiRoute): void {
    const { ok, errors: _errors, public: isPublic, read: _read, ...config } = route;
    const responses: Record<number, ResponseConfig> = { ...ok };
    for (const status of errorStatuses(route)) responses[status] = errorResponse(status);
    this.routes.push({ method: route.method, path: route.path });
    this.registry.registerPath({ ...config, security: isPublic ? [] : [{ bearer: [] }], responses });
  }
}
