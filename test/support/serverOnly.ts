import { EMBEDDED_DATABASE } from './env.js';

/** The marker the skipped-tests reporter (serverOnlyReporter.mjs) looks for in a test's title. */
export const SERVER_ONLY_MARK = '[server only:';

/**
 * A test that needs what only a PostgreSQL server gives: several backend
 * sessions at once (races between transactions, lock waits, LISTEN/NOTIFY
 * between processes). PGlite is one session, so on the embedded default it is
 * skipped, with `reason` in its title (the run's summary lists it); against a
 * server (TEST_DATABASE_ADMIN_URL) it runs as written.
 */
export function itServerOnly(reason: string, name: string, fn: jest.ProvidesCallback, timeout?: number): void {
  if (EMBEDDED_DATABASE) it.skip(`${name} ${SERVER_ONLY_MARK} ${reason}]`, fn, timeout);
  else it(name, fn, timeout);
}
