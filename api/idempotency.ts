import type { Request, Response } from 'express';
import { z } from 'zod';
import { IdempotencyInProgress, IdempotencyMismatch, requestHash, type IdempotencyStore } from '../core/memories/idempotency.js';
import { principalOf } from './auth.js';
import { HttpError } from './errors.js';

/** Printable ASCII, as the IETF Idempotency-Key draft and most clients (UUIDs, ULIDs) use. */
const idempotencyKeySchema = z.string().regex(/^[\x21-\x7E]{1,255}$/, 'must be 1 to 255 printable ASCII characters');

/** Seconds a duplicate that gave up waiting for the first request is told to wait. */
const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

/**
 * Sends `produce`'s answer; with an `Idempotency-Key` header, runs it at most
 * once per key (of the caller's API key) within 24 h and answers retries with
 * the original status and body (and `Idempotent-Replayed: true`). The same key
 * with another body is a 422.
 */
export async function answerIdempotently(
  req: Request,
  res: Response,
  store: IdempotencyStore,
  produce: () => Promise<{ status: number; body: unknown }>,
): Promise<void> {
  const header = req.headers['idempotency-key'];
  if (header === undefined) {
    const answer = await produce();
    return void res.status(answer.status).json(answer.body);
  }
  const parsed = idempotencyKeySchema.safeParse(header);
  if (!parsed.success) {
    throw new HttpError('invalid_input', 'Invalid input', [{ field: 'Idempotency-Key', message: parsed.error.issues[0].message, code: 'custom' }]);
  }
  try {
    const answer = await store.run(
      { keyId: principalOf(req).keyId, idempotencyKey: parsed.data, requestHash: requestHash(`${req.method} ${req.baseUrl}${req.path}`, req.body) },
      produce,
    );
    if (answer.replayed) res.set('Idempotent-Replayed', 'true');
    res.status(answer.status).json(answer.body);
  } catch (err) {
    if (err instanceof IdempotencyMismatch) throw new HttpError('idempotency_mismatch', err.message, { idempotency_key: err.idempotencyKey });
    if (err instanceof IdempotencyInProgress) {
      res.set('Retry-After', String(IN_PROGRESS_RETRY_AFTER_SECONDS));
      throw new HttpError('conflict', err.message, { idempotency_key: err.idempotencyKey, retry_after_seconds: IN_PROGRESS_RETRY_AFTER_SECONDS });
    }
    throw err;
  }
}
