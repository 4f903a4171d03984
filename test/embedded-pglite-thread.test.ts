import pg from 'pg';
import { startEphemeralPostgres } from '../core/embedded/postgres.js';

// Apart from test/embedded-pglite.test.ts: this one bounds a stall in wall time, so it runs with the machine to
// itself (ALONE in scripts/test.mjs), and the rest of PGlite's tests run beside other files.
describe('embedded Postgres in its own thread', () => {
  it('runs SQL beside the main thread: a long statement does not stall the event loop', async () => {
    const postgres = await startEphemeralPostgres({ artifacts: await globalThis.mnemoSharedPgliteArtifacts?.() });
    const client = new pg.Client({ connectionString: postgres.url });
    try {
      await client.connect();
      // The longest time the event loop went without running a 5 ms timer.
      let last = performance.now();
      let longestStallMs = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        longestStallMs = Math.max(longestStallMs, now - last);
        last = now;
      }, 5);
      const started = performance.now();
      // Pure CPU inside PGlite: on the main thread it blocked every timer for its whole duration.
      await client.query('SELECT count(*) FROM generate_series(1, 3000000) AS g WHERE g % 7 = 3');
      const statementMs = performance.now() - started;
      clearInterval(ticker);
      longestStallMs = Math.max(longestStallMs, performance.now() - last);
      expect(statementMs).toBeGreaterThan(300);
      expect(longestStallMs).toBeLessThan(statementMs / 2);
    } finally {
      await client.end();
      await postgres.stop();
    }
  });
});
