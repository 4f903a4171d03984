import type { ErrorRequestHandler, RequestHandler } from 'express';
import { z } from 'zod';
import { isDatabaseUnavailable } from '../core/db/unavailable.js';

export type ErrorCode =
  | 'invalid_input'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'idempotency_mismatch'
  | 'task_write_limit'
  | 'unavailable'
  | 'internal';

const STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  /** An Idempotency-Key reused with another request body. */
  idempotency_mismatch: 422,
  /** A persistent task's burst already wrote its 50 memories. */
  task_write_limit: 429,
  unavailable: 503,
  internal: 500,
};

/** Every failure the API reports; rendered as `{error: {code, message, details}}`. */
export class HttpError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
  get status(): number {
    return STATUS[this.code];
  }
}

/** Seconds a request refused because PostgreSQL is unreachable is told to wait (a restart takes a few). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** Seconds a request refused because Temporal did not answer in time is told to wait (the API's calls give it a few seconds). */
export const TEMPORAL_RETRY_AFTER_SECONDS = 2;

/** Temporal could not take a start, signal or update in time: nothing was done, and the client may retry (503 with Retry-After, as every 503). */
export const temporalUnavailable = (message: string) => new HttpError('unavailable', message, { retry_after_seconds: TEMPORAL_RETRY_AFTER_SECONDS });

export const notFound = (what: string) => new HttpError('not_found', `${what} not found`);

/** zod issues as `{field, message}` pairs, so clients see each invalid field. */
export function zodDetails(error: z.ZodError): Array<{ field: string; message: string; code: string }> {
  return error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.join('.') : '(body)',
    message: issue.message,
    code: issue.code,
  }));
}

export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof z.ZodError) return new HttpError('invalid_input', 'Invalid input', zodDetails(err));
  const e = err as { type?: string; status?: number; message?: string };
  // body-parser's own errors
  if (e?.type === 'entity.too.large') return new HttpError('payload_too_large', 'Request body is too large');
  if (e?.type === 'entity.parse.failed') return new HttpError('invalid_input', `Malformed JSON: ${e.message}`);
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new HttpError('unsupported_media_type', e.message ?? 'Unsupported encoding');
  }
  // PostgreSQL restarting or unreachable: the client should retry, not treat it as a bug (the write was not acknowledged).
  if (isDatabaseUnavailable(err)) {
    return new HttpError('unavailable', 'The database is unavailable; retry shortly', { retry_after_seconds: DATABASE_RETRY_AFTER_SECONDS });
  }
  return new HttpError('internal', 'Internal error');
}

/** Maps any error to the one JSON error shape; internal errors are logged with the request id. */
export function errorHandler(): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const httpError = toHttpError(err);
    if (httpError.code === 'internal') {
      req.log.error({ err }, 'unhandled error');
    }
    if (httpError.code === 'unavailable' && isDatabaseUnavailable(err)) req.log.warn({ err }, 'database unavailable; answered 503');
    const retryAfter = (httpError.details as { retry_after_seconds?: unknown } | null | undefined)?.retry_after_seconds;
    if (httpError.code === 'unavailable' && typeof retryAfter === 'number' && !res.get('Retry-After')) res.set('Retry-After', String(retryAfter));
    res.status(httpError.status).json({
      error: { code: httpError.code, message: httpError.message, details: httpError.details ?? null },
    });
  };
}

export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new HttpError('not_found', `No route for ${req.method} ${req.path}`));
};
