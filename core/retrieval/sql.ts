import { createHash } from 'node:crypto';
import type { Pool, Queryable } from '../db/pool.js';

/** Collects positional parameters so every value reaches PostgreSQL as a bind parameter, never as SQL text. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * Runs every statement as a named prepared statement (named by a hash of its
 * text), so each connection plans a statement shape once and PostgreSQL can
 * reuse the plan: planning the CTE-heavy signal queries costs more than
 * running them on a per-user scope.
 */
function prepared(client: Queryable): Queryable {
  const names = new Map<string, string>();
  return {
    query: ((text: string, values?: unknown[]) => {
      let name = names.get(text);
      if (!name) {
        name = `mnemo_read_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
        names.set(text, name);
      }
      return client.query({ name, text, values });
    }) as Queryable['query'],
  };
}

/**
 * Runs a read on one connection in a read-only transaction (one snapshot for
 * every signal of a request). HNSW iterative scans let filtered vector queries
 * (one namespace or user among many) keep walking the graph until enough rows
 * pass the filter instead of returning the few of the first 40 neighbours that do.
 */
export async function withReadClient<T>(pool: Pool, fn: (db: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN READ ONLY; SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = 100');
    const result = await fn(prepared(client));
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
