import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../core/db/migrate.js';
import { TEST_PG_ADMIN_URL } from './env.js';

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

export async function createEmptyDatabase(prefix = 'mnemo_t'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
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
