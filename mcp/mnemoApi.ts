import type { ContextInput, FactsInput, ForgetKind, GetSessionInput, RememberInput, SearchInput, SessionTurnInput } from './toolInputs.js';

/** A JSON object as the API answers it. */
export type ApiBody = Record<string, unknown>;

export type EntityScope = {
  namespace?: string;
  user_id?: string;
  as_of?: string;
};

/**
 * The operations the MCP tools need from the Mnemo HTTP API. The tools see only
 * this interface, so the fetch-based implementation (httpMnemoApi.ts) can be
 * replaced by an adapter over the typed client in `client/` without touching them.
 * Failures reject with an error carrying the API's `{code, message, details}` (see MnemoApiError).
 */
export interface MnemoApi {
  remember(input: RememberInput): Promise<ApiBody>;
  search(input: SearchInput): Promise<ApiBody>;
  context(input: ContextInput): Promise<ApiBody>;
  facts(input: FactsInput): Promise<ApiBody>;
  findEntities(input: EntityScope & { q: string; type?: string; limit: number }): Promise<ApiBody>;
  entity(id: string, scope: EntityScope): Promise<ApiBody>;
  forget(kind: ForgetKind, id: string): Promise<ApiBody>;
  addSessionTurn(input: SessionTurnInput): Promise<ApiBody>;
  session(input: GetSessionInput): Promise<ApiBody>;
}

/** An error answer of the API (or `unavailable` when it could not be reached), in its one error shape. */
export class MnemoApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
    this.name = 'MnemoApiError';
  }
}
