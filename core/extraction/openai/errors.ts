import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

/** Failure types, usable in a RetryPolicy's `nonRetryableErrorTypes` and shown in stage_run errors. */
export const MODEL_FAILURE_TYPES = {
  /** 429, 5xx, timeouts, connection errors: worth another attempt. */
  unavailable: 'ModelUnavailable',
  /** 400/401/403/404/422...: the same request will be rejected again. */
  rejected: 'ModelRequestRejected',
  /** The model answered, but not with the JSON we asked for, even after repair attempts. */
  malformed: 'MalformedModelOutput',
  /** The embedding endpoint answered vectors of the wrong width or count. */
  badEmbedding: 'EmbeddingShapeMismatch',
} as const;

/** Longest server-requested back-off we pass on to Temporal; beyond it the retry policy decides. */
const MAX_RETRY_AFTER_MS = 60_000;

function statusLabel(status: number): string {
  if (status === 429) return 'rate limited';
  if (status === 408) return 'request timeout';
  if (status === 409) return 'conflict';
  if (status >= 500) return 'server error';
  if (status === 401) return 'unauthorized: check OPENAI_API_KEY';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not found: check OPENAI_BASE_URL and the model name';
  if (status === 400) return 'bad request';
  return 'rejected';
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after-ms') ?? null;
  if (value !== null && Number.isFinite(Number(value))) return Math.min(Number(value), MAX_RETRY_AFTER_MS);
  const seconds = headers?.get('retry-after') ?? null;
  if (seconds !== null && Number.isFinite(Number(seconds))) return Math.min(Number(seconds) * 1000, MAX_RETRY_AFTER_MS);
  return undefined;
}

function causeText(error: Error): string {
  const cause = error.cause;
  return cause instanceof Error && cause.message ? `: ${cause.message}` : '';
}

/**
 * Maps an error from the OpenAI SDK to the Temporal failure the activity should
 * throw. Errors that are not from the SDK (bugs, already-classified failures)
 * come back unchanged.
 */
export function classifyModelError(error: unknown, context: { endpoint: string; timeoutMs: number; timedOut?: boolean }): unknown {
  if (error instanceof ApplicationFailure) return error;
  // Timeout is a subclass of connection error, so it is tested first.
  if (context.timedOut || error instanceof APIConnectionTimeoutError) {
    return ApplicationFailure.create({
      message: `model endpoint ${context.endpoint} timed out after ${context.timeoutMs} ms`,
      type: MODEL_FAILURE_TYPES.unavailable,
      cause: error instanceof Error ? error : undefined,
    });
  }
  if (error instanceof APIConnectionError) {
    return ApplicationFailure.create({
      message: `could not reach model endpoint ${context.endpoint}${causeText(error)}`,
      type: MODEL_FAILURE_TYPES.unavailable,
      cause: error,
    });
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const message = `model endpoint returned ${status} (${statusLabel(status)}): ${error.message}`;
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    if (retryable) {
      return ApplicationFailure.create({
        message,
        type: MODEL_FAILURE_TYPES.unavailable,
        cause: error,
        nextRetryDelay: retryAfterMs(error.headers),
      });
    }
    return ApplicationFailure.create({ message, type: MODEL_FAILURE_TYPES.rejected, nonRetryable: true, cause: error });
  }
  return error;
}

/** `details` travel with the failure to the workflow (e.g. the usage the failed attempt cost). */
export function malformedOutputFailure(repairAttempts: number, problem: string, ...details: unknown[]): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `model returned malformed output after ${repairAttempts} repair attempts: ${problem}`,
    MODEL_FAILURE_TYPES.malformed,
    ...details,
  );
}
