import pg from 'pg';
import { migrate, readMigrations } from '../core/db/migrate.js';
import { createEmptyDatabase, type TestDatabase } from './support/db.js';
import { itServerOnly } from './support/serverOnly.js';

describe('migrations', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createEmptyDatabase('mnemo_mig');
  });
  afterEach(async () => {
    await db.drop();
  });

  async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  }

  it('applies every migration on an empty database and records it as Prisma does', async () => {
    const files = await readMigrations();
    const result = await migrate(db.url);
    expect(result.applied).toEqual(files.map((f) => f.name));
    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }>(
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(files.map((f) => [f.name, f.checksum]));
    for (const row of rows) {
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.applied_steps_count).toBe(1);
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('is a no-op the second time', async () => {
    await migrate(db.url);
    const again = await migrate(db.url);
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied.length).toBeGreaterThan(0);
    const rows = await query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations"');
    expect(rows[0].n).toBe(again.alreadyApplied.length);
  });

  itServerOnly('two runners need two backend sessions: pg_advisory_lock is re-entrant within PGlite\'s one session', 'lets exactly one of two concurrent runners apply', async () => {
    const [a, b] = await Promise.all([migrate(db.url), migrate(db.url)]);
    const files = await readMigrations();
    expect([...a.applied, ...b.applied].sort()).toEqual(files.map((f) => f.name).sort());
    expect(a.applied.length === 0 || b.applied.length === 0).toBe(true);
    const rows = await query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations"');
    expect(rows[0].n).toBe(files.length);
  });

  it('creates HNSW indexes on every embedding column and GIN indexes on full-text columns', async () => {
    await migrate(db.url);
    const indexes = await query<{ tablename: string; indexname: string; indexdef: string }>(
      "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
    );
    const hnsw = indexes.filter((i) => /USING hnsw/i.test(i.indexdef));
    expect(hnsw.map((i) => i.tablename).sort()).toEqual(['entity', 'episode', 'episode_passage', 'fact']);
    for (const i of hnsw) expect(i.indexdef).toMatch(/vector_cosine_ops/);
    const gin = indexes.filter((i) => /USING gin/i.test(i.indexdef) && /_tsv/.test(i.indexdef));
    // Each table's words, and each user's words in their episodes (the keyword signal narrowed to a user).
    expect(gin.map((i) => `${i.tablename}.${i.indexname}`).sort()).toEqual(['episode.episode_tsv_idx', 'episode.episode_user_terms_idx', 'fact.fact_tsv_idx']);
    const vectorColumns = await query<{ table_name: string; column_name: string }>(
      "SELECT table_name, column_name FROM information_schema.columns WHERE udt_name = 'vector' AND table_schema = 'public'",
    );
    expect(vectorColumns).toHaveLength(hnsw.length);
  });

  it('refuses a migration edited after it was applied', async () => {
    await migrate(db.url);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(`UPDATE "_prisma_migrations" SET checksum = repeat('0', 64)`);
    await client.end();
    await expect(migrate(db.url)).rejects.toThrow(/checksum differs/);
  });
});
