import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../../core/db/migrate.js';
import { startEphemeralPostgres } from '../../core/embedded/postgres.js';
import type { PgliteArtifacts } from '../../core/embedded/pgliteThread.js';
import { EMBEDDED_DATABASE, TEST_PG_ADMIN_URL } from './env.js';

declare global {
  /** PGlite's artifacts, compiled once per Jest worker process (test/support/nodeEnvironment.mjs); absent outside Jest. */
  var mnemoSharedPgliteArtifacts: (() => Promise<PgliteArtifacts>) | undefined;
}

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
 * `loadDataDir` starts it as a saved one was.
 */
async function createEmbeddedDatabase(name: string, loadDataDir?: string): Promise<TestDatabase> {
  const postgres = await startEphemeralPostgres({ loadDataDir, artifacts: await globalThis.mnemoSharedPgliteArtifacts?.() });
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

/** Waits (at most 0.5 s) until no backend is connected to database `name`: a pool's end() resolves before its backends exit. */
async function waitForBackendsToLeave(admin: pg.Client, name: string): Promise<void> {
  for (let waited = 0; waited < 500; waited += 20) {
    const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
    if (rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function withAdmin<T>(use: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.end();
  }
}

async function createServerDatabase(name: string, template?: string): Promise<TestDatabase> {
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  return {
    url: urlFor(name),
    name,
    drop: () =>
      withAdmin(async (admin) => {
        // FORCE on backends still exiting would make the ending client emit the server's FATAL as an unhandled
        // error: let them go first (a leaked connection is still cut off after 0.5 s).
        await waitForBackendsToLeave(admin, name);
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/** A new database named after `prefix`: empty, or a copy of `template` (see MIGRATED_TEMPLATE). */
function createDatabase(prefix: string, template?: string): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  return EMBEDDED_DATABASE ? createEmbeddedDatabase(name, template) : createServerDatabase(name, template);
}

export function createEmptyDatabase(prefix = 'mnemo_t'): Promise<TestDatabase> {
  return createDatabase(prefix);
}

/**
 * Where a migrated database waits to be copied (MNEMO_TEST_MIGRATED_TEMPLATE, set by the global setup): a saved
 * PGlite data directory on the embedded default, a template database on a server. Copying it instead of starting
 * PGlite from initdb and migrating saves 3-4 s of CPU per test database there, 0.3 s on a server.
 */
const MIGRATED_TEMPLATE = 'MNEMO_TEST_MIGRATED_TEMPLATE';

/** A fresh, migrated database: a copy of the run's migrated template, or (without one) a new database migrated now. */
export async function createTestDatabase(prefix = 'mnemo_t'): Promise<TestDatabase> {
  const template = process.env[MIGRATED_TEMPLATE];
  if (template) return createDatabase(prefix, template);
  const db = await createDatabase(prefix);
  await migrate(db.url);
  return db;
}

/**
 * Migrates a database once for the run and names it in MNEMO_TEST_MIGRATED_TEMPLATE (`location`: the saved PGlite's
 * file, or the template database's name); `remove()` deletes it.
 */
export async function prepareMigratedTemplate(dir: string): Promise<{ location: string; remove(): Promise<void> }> {
  if (EMBEDDED_DATABASE) {
    const file = path.join(dir, 'migrated-pglite.tar');
    // One saved in `dir` already (a folder both of npm test's Jest runs share) is these migrations, migrated.
    if (!existsSync(file)) {
      const postgres = await startEphemeralPostgres();
      await migrate(postgres.url);
      await postgres.stop({ saveTo: file });
    }
    process.env[MIGRATED_TEMPLATE] = file;
    // It goes with its folder: the run's, or the one npm test removes after both runs.
    return { location: file, remove: async () => undefined };
  }
  const db = await createServerDatabase(`mnemo_template_${randomBytes(5).toString('hex')}`);
  await migrate(db.url);
  // CREATE DATABASE ... TEMPLATE refuses a template anyone is connected to.
  await withAdmin((admin) => waitForBackendsToLeave(admin, db.name));
  process.env[MIGRATED_TEMPLATE] = db.name;
  return { location: db.name, remove: () => db.drop() };
}

/**
 * A migrated test database with a small pool on it for one test file: created (and `seed`ed) before its tests,
 * closed and dropped after them. Returns the pool's getter.
 */
export function useMigratedPool(prefix: string, seed?: (pool: pg.Pool) => Promise<void>): () => pg.Pool {
  let db: TestDatabase | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(prefix);
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    await seed?.(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });
  return () => {
    if (!pool) throw new Error('the test pool is used before beforeAll');
    return pool;
  };
}
