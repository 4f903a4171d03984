/**
 * Whether `err` says PostgreSQL could not be reached or went away mid-request
 * (a restart, a failover, a refused connection) rather than that the request
 * was wrong: such a request may succeed when retried a moment later, so the API
 * answers 503 with Retry-After instead of a 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  // SQLSTATE class 08 (connection exception); 57P01-57P03: admin / crash shutdown, cannot connect now.
  if (/^08...$/.test(code) || code === '57P01' || code === '57P02' || code === '57P03') return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
  // node-postgres reports a dropped connection or a pool connect timeout by message only.
  const message = typeof e.message === 'string' ? e.message : '';
  return /^Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed/.test(message);
}
