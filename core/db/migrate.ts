import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The same lock key `prisma migrate` takes, so our runner and Prisma's exclude each other. */
const PRISMA_ADVISORY_LOCK_KEY = 72707369;

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../prisma/migrations');

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

/** Reads `prisma/migrations/<timestamp>_<name>/migration.sql` folders in order. */
export async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

// Prisma's own bookkeeping table, column for column.
const CREATE_PRISMA_MIGRATIONS = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Applies pending migrations, each in its own transaction, under Prisma's advisory
 * lock, recording them in `_prisma_migrations` as `prisma migrate deploy` does.
 * Hand-written because Prisma 7's migrate engine is a download this machine cannot make.
 */
export async function migrate(connectionString: string, dir = MIGRATIONS_DIR): Promise<MigrateResult> {
  const migrations = await readMigrations(dir);
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  const alreadyApplied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
    try {
      await client.query(CREATE_PRISMA_MIGRATIONS);
      const { rows } = await client.query<{ migration_name: string; checksum: string }>(
        `SELECT migration_name, checksum FROM "_prisma_migrations"
          WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      );
      const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
      for (const migration of migrations) {
        const recorded = done.get(migration.name);
        if (recorded !== undefined) {
          if (recorded !== migration.checksum) {
            throw new Error(
              `Migration ${migration.name} was modified after it was applied (checksum differs); add a new migration instead.`,
            );
          }
          alreadyApplied.push(migration.name);
          continue;
        }
        await client.query('BEGIN');
        try {
          const id = randomUUID();
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
             VALUES ($1, $2, $3, now(), 0)`,
            [id, migration.checksum, migration.name],
          );
          await client.query(migration.sql);
          await client.query(
            `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
            [id],
          );
          await client.query('COMMIT');
          applied.push(migration.name);
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`Migration ${migration.name} failed: ${(err as Error).message}`, { cause: err });
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
  return { applied, alreadyApplied };
}

/** Names of migrations in the folder that the database has not applied (for /readyz). */
export async function pendingMigrations(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const exists = await pool.query(`SELECT to_regclass('"_prisma_migrations"') AS t`);
  if (!exists.rows[0]?.t) return migrations.map((m) => m.name);
  const { rows } = await pool.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const done = new Set(rows.map((r) => r.migration_name));
  return migrations.filter((m) => !done.has(m.name)).map((m) => m.name);
}
