import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiBody } from './mnemoApi.js';

/** The API's answer for the model (JSON text) and for programs (structuredContent). */
export function toolSuccess(body: ApiBody): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/** A failure as a tool error in the API's one error shape, so the model can read the code and fix its call. */
export function toolFailure(code: string, message: string, details: unknown = null): CallToolResult {
  const error = { code, message, details };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}

/**
 * Runs one API operation as a tool call. Any error with a string `code` and `message` (MnemoApiError,
 * or the typed client's errors) keeps them; anything else is an internal error, without its internals.
 */
export async function runTool(operation: () => Promise<ApiBody>): Promise<CallToolResult> {
  try {
    return toolSuccess(await operation());
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown; details?: unknown };
    if (typeof e?.code === 'string' && typeof e.message === 'string') return toolFailure(e.code, e.message, e.details ?? null);
    return toolFailure('internal', 'The tool failed unexpectedly');
  }
}
