import pg from 'pg';
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { createPool } from '../core/db/pool.js';
import { createEmptyDatabase, type TestDatabase } from './support/db.js';

// The read path's sessions are tuned at connection start (core/db/pool.ts); these are the settings its
// latency depends on, checked on the database the tests run against (a server or the embedded PGlite).
describe('read-path sessions', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createEmptyDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  async function setting(pool: pg.Pool, name: string): Promise<string> {
    return (await pool.query<{ v: string }>('SELECT current_setting($1) AS v', [name])).rows[0].v;
  }

  /** Whether executing a trivial statement, with every cost above the JIT thresholds, compiles it. */
  async function compiles(pool: pg.Pool): Promise<boolean> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL jit_above_cost = 0');
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ JIT?: unknown }> }>(
        'EXPLAIN (ANALYZE, FORMAT JSON) SELECT sum(g) FROM generate_series(1, 1000) g',
      );
      return rows[0]['QUERY PLAN'][0].JIT !== undefined;
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  it('run generic plans, no parallel workers, no JIT, and a statement timeout', async () => {
    const pool = createPool(db.url, 2, { readPath: true });
    try {
      expect(await setting(pool, 'plan_cache_mode')).toBe('force_generic_plan');
      expect(await setting(pool, 'max_parallel_workers_per_gather')).toBe('0');
      expect(await setting(pool, 'jit')).toBe('off');
      expect(await setting(pool, 'statement_timeout')).toBe('5s');
    } finally {
      await pool.end();
    }
  });

  it('never compile a statement, where the server would (a generic plan of a search at a million episodes is costed above the JIT threshold)', async () => {
    const read = createPool(db.url, 1, { readPath: true });
    const plain = createPool(db.url, 1);
    try {
      expect(await compiles(read)).toBe(false);
      // The comparison only means something where the server can compile (a server built with LLVM; not PGlite).
      const available = (await plain.query<{ a: boolean }>('SELECT pg_jit_available() AS a')).rows[0].a;
      expect(await compiles(plain)).toBe(available);
    } finally {
      await Promise.all([read.end(), plain.end()]);
    }
  });

  it('stay open while idle for READ_CONNECTION_IDLE_MS (10 minutes by default); a shorter time closes them', async () => {
    // Reopened, a read connection plans the read path's statements again: keeping it across an agent's pause is what
    // keeps the first reads after the pause fast. Shortened here to a second against a minute, to watch both sides.
    const kept = createPool(db.url, 2, { readPath: true, idleTimeoutMillis: 60_000 });
    const closed = createPool(db.url, 2, { readPath: true, idleTimeoutMillis: 1_000 });
    try {
      const first = await kept.connect();
      first.release();
      await closed.query('SELECT 1');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(closed.totalCount).toBe(0);
      expect(kept.totalCount).toBe(1);
      const again = await kept.connect();
      expect(again).toBe(first);
      again.release();
    } finally {
      await Promise.all([kept.end(), closed.end()]);
    }
    const deps = buildDeps(loadConfig({ DATABASE_URL: db.url, TEMPORAL_ADDRESS: '127.0.0.1:7233', LOG_LEVEL: 'silent' } as NodeJS.ProcessEnv));
    try {
      expect((deps.readPool as pg.Pool & { options: { idleTimeoutMillis: number } }).options.idleTimeoutMillis).toBe(600_000);
    } finally {
      await deps.close();
    }
  });
});
