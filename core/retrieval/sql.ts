import { createHash } from 'node:crypto';
import type { Pool, Queryable } from '../db/pool.js';
import { memoizeBounded } from './memo.js';

/** Collects positional parameters so every value reaches PostgreSQL as a bind parameter, never as SQL text. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * Statement names by statement text, shared by every connection (a hash per
 * query showed in profiles). Statement shapes are few; the bound only guards
 * against a bug that makes them unbounded.
 */
const statementName = memoizeBounded((text) => `mnemo_read_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, 5_000);

/**
 * Runs every statement as a named prepared statement (named by a hash of its
 * text), so each connection plans a statement shape once: with the generic
 * plans the pool's sessions ask for (see createPool), planning the CTE-heavy
 * signal queries, which cost more than running them on one user's rows, is paid
 * once per connection instead of on every request. On the embedded default all
 * connections share PGlite's one session; the wire layer keeps these names per
 * connection (core/embedded/sessionState.ts), which measured faster there than
 * unnamed statements too (sequential search/context p50 about a quarter lower).
 */
function prepared(client: Queryable): Queryable {
  return {
    query: ((text: string, values?: unknown[]) => client.query({ name: statementName(text), text, values })) as Queryable['query'],
  };
}

/**
 * Runs a read on one connection. No transaction: a request's few statements
 * need no common snapshot (each is scoped and filtered on its own), and BEGIN
 * and COMMIT were a third of its round trips to PostgreSQL.
 */
export async function withReadClient<T>(pool: Pool, fn: (db: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await fn(prepared(client));
  } finally {
    client.release();
  }
}
