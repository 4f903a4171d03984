import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../core/db/migrate.js';
import { startEphemeralPostgres } from '../../core/embedded/postgres.js';
import { EMBEDDED_DATABASE, TEST_PG_ADMIN_URL } from './env.js';

/** A fresh, migrated database on the test PostgreSQL server; `drop()` removes it. */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function urlFor(dbName: string): string {
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${dbName}`;
  return url.toString();
}

/**
 * On the embedded default a database is a PGlite instance of its own (PGlite
 * runs one database per instance: `CREATE DATABASE` succeeds, but a connection
 * to it still lands in `postgres`), served on a loopback port like `npm start`'s.
 */
async function createEmbeddedDatabase(name: string): Promise<TestDatabase> {
  const postgres = await startEphemeralPostgres();
  let dropped = false;
  return {
    url: postgres.url,
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      await postgres.stop();
    },
  };
}

export async function createEmptyDatabase(prefix = 'mnemo_t'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  if (EMBEDDED_DATABASE) return createEmbeddedDatabase(name);
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: urlFor(name),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
      await c.connect();
      try {
        // A pool's end() resolves before its backends have exited: FORCE would terminate them mid-exit and the
        // ending client would emit the server's FATAL as an unhandled error. Let them go first (a leaked
        // connection is still cut off after 0.5 s).
        for (let waited = 0; waited < 500; waited += 20) {
          const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
          if (rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export async function createTestDatabase(prefix = 'mnemo_t'): Promise<TestDatabase> {
  const db = await createEmptyDatabase(prefix);
  await migrate(db.url);
  return db;
}
