import pg from 'pg';
import pgvector from 'pgvector';
import { READ_APPLICATION_NAME } from './applicationName.js';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'>;

// int8 counts come back as numbers (they stay far below 2^53 here).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface PoolOptions {
  /**
   * Commit without waiting for the WAL flush (`synchronous_commit=off`). Only
   * for rows that are telemetry or can be recomputed (stage runs, embeddings):
   * a crash may lose their last few hundred milliseconds, never user data.
   */
  asyncCommit?: boolean;
  /** Sessions tuned for the read path (READ_SESSION_OPTIONS). */
  readPath?: boolean;
  /** Milliseconds an idle connection stays open (default 30 s). */
  idleTimeoutMillis?: number;
}

/**
 * Session settings of the read path's connections, sent as start-up options
 * (no round trip). HNSW iterative scans let filtered vector queries (one
 * namespace or user among many) keep walking the graph until enough rows pass
 * the filter, instead of returning the few of the first 40 neighbours that do.
 * Generic plans for its named prepared statements: their custom plans were
 * re-planned on every execution, which cost more than executing them. No
 * parallel workers: reads are many small concurrent statements, and a
 * gated-off branch of the search statement still launched two workers (18 ms)
 * for nothing. Trigram matches (`%`) at the similarity the read path keeps
 * (core/retrieval/entityMatch.ts): at the default 0.3 the name index handed
 * over twice as many rows per query word to recheck and drop (12.4 → 3.9 ms
 * for a five-word question at 100k episodes, same rows). Not for the write
 * path: there the same settings made extraction 15 % slower (entity
 * resolution's filtered nearest-name queries walk further). No JIT: a generic
 * plan's costs grow with the tables, and at a million episodes the search
 * statement's costs passed `jit_above_cost`, so every execution compiled it again
 * (177 of its 242 ms) to save microseconds of expression evaluation.
 */
const READ_SESSION_OPTIONS = [
  '-c hnsw.iterative_scan=relaxed_order',
  '-c hnsw.ef_search=100',
  '-c plan_cache_mode=force_generic_plan',
  '-c max_parallel_workers_per_gather=0',
  '-c jit=off',
  '-c pg_trgm.similarity_threshold=0.5',
  // A person waits on a read: one that runs for seconds is cancelled (an error) rather than holding a connection.
  '-c statement_timeout=5000',
];

export function createPool(connectionString: string, max = 10, options: PoolOptions = {}): pg.Pool {
  const sessionOptions = [...(options.readPath ? READ_SESSION_OPTIONS : []), ...(options.asyncCommit ? ['-c synchronous_commit=off'] : [])];
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: options.idleTimeoutMillis ?? 30_000,
    // Connections kept open for long never hold a process that has nothing else to do (a script that read and is done).
    ...(options.idleTimeoutMillis === undefined ? {} : { allowExitOnIdle: true }),
    ...(options.readPath ? { application_name: READ_APPLICATION_NAME } : {}),
    ...(sessionOptions.length ? { options: sessionOptions.join(' ') } : {}),
  });
  // A server restart terminates a checked-out connection between two statements (e.g. a transaction awaiting an
  // embedding): pg then emits 'error' on the client, which without a listener crashed the process (the chaos run
  // found it). Nothing is lost by listening: the client's next query fails with the error and release() drops it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Runs `fn` in a transaction on one connection; rolls back on any error. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** pgvector's text form, for parameters cast with `::vector`. */
export function toVectorSql(values: number[]): string {
  return pgvector.toSql(values) as string;
}

/** Parses a `vector` selected as text. */
export function fromVectorSql(text: string): number[] {
  return pgvector.fromSql(text) as number[];
}
