import pg from 'pg';
import { migrate } from '../../core/db/migrate.js';

/** Where benchmarks put their data when DATABASE_URL is unset: the local PostgreSQL (with pgvector). */
export const DEFAULT_BENCH_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/mnemo_bench';

/**
 * Makes sure the database of `url` exists on its server (re-created empty when
 * `fresh`) and is migrated. Benchmarks need a real PostgreSQL with pgvector.
 */
export async function ensureBenchDatabase(url: string, fresh: boolean): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`bench database name must be a plain identifier, got "${name}"`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    if (fresh) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  await migrate(url);
}

/** The database `bench:read --size N` loads (DATABASE_URL's server, else the local one), which later read benches reuse. */
export function readBenchDatabaseUrl(size: number): string {
  return siblingDatabaseUrl(process.env.DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL, `mnemo_bench_read_${size}`);
}

/** A database URL beside `url` on the same server. */
export function siblingDatabaseUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
