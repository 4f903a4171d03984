// What a test depends on when it depends on which PostgreSQL the run uses: `npm test` with
// TEST_DATABASE_DEPENDENT_ONLY selects the test files that import this module or support/db.ts (scripts/test.mjs).

/**
 * Which PostgreSQL the tests use. With TEST_DATABASE_ADMIN_URL set: that server,
 * one database per test file. Without: the embedded default, PGlite served on a
 * loopback port, one in-memory instance per test database (test/support/db.ts).
 */
export const EMBEDDED_DATABASE = !process.env.TEST_DATABASE_ADMIN_URL;

/**
 * A connection for tests that only need some PostgreSQL (no tables of their
 * own): the server's admin database, or on the embedded default the PGlite
 * instance globalSetup started (MNEMO_TEST_EMBEDDED_ADMIN_URL).
 */
export const TEST_PG_ADMIN_URL =
  process.env.TEST_DATABASE_ADMIN_URL ?? process.env.MNEMO_TEST_EMBEDDED_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
