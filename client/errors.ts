/** An error answer of the Mnemo API: the server's `{error: {code, message, details}}` with the HTTP status. */
export class MnemoApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown,
    /** Seconds the server asked to wait (Retry-After), when it said. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'MnemoApiError';
  }
}
