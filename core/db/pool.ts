import pg from 'pg';
import pgvector from 'pgvector';

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
}

export function createPool(connectionString: string, max = 10, options: PoolOptions = {}): pg.Pool {
  return new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    ...(options.asyncCommit ? { options: '-c synchronous_commit=off' } : {}),
  });
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
