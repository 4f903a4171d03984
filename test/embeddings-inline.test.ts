import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './support/db.js';
import { insertEntity, insertEpisode, insertFact } from './support/graphFixtures.js';

/** A chat turn of about 700 characters: with PostgreSQL's default, enough to push its embedding out of the row. */
const turn = (i: number) =>
  `Turn ${i}: we spent the morning going through the quarterly roadmap, then argued about whether the mobile release should wait ` +
  `for the payments rewrite or ship with the old checkout. Priya thinks the risk is in the migration scripts, not in the app, ` +
  `and wants a dry run on a copy of production first. Marco agreed to write the rollback plan by Thursday, and I promised to ` +
  `ask the support team which complaints they hear most about checkout, so that we know what the rewrite has to fix first. ` +
  `After lunch the design review ran long again; we still have not settled the onboarding flow, and the copy is not final.`;

describe('embeddings stay in the row', () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase('mnemo_inline');
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('keeps long turns and their facts whole, with nothing in the TOAST tables', async () => {
    const subject = await insertEntity(pool, { namespace: 'inline', name: 'Priya' });
    for (let i = 0; i < 20; i++) {
      const episodeId = await insertEpisode(pool, { namespace: 'inline', content: turn(i), occurredAt: new Date(Date.UTC(2026, 0, 1, i)) });
      await insertFact(pool, {
        namespace: 'inline', subjectId: subject, predicate: 'said', family: 'other', episodeIds: [episodeId],
        factText: turn(i).slice(0, 420),
      });
    }
    const { rows } = await pool.query<{ tbl: string; rows: number; row_bytes: number; toast_bytes: number }>(
      `SELECT t.tbl, (SELECT count(*)::int FROM episode WHERE t.tbl = 'episode') + (SELECT count(*)::int FROM fact WHERE t.tbl = 'fact') AS rows,
              CASE t.tbl WHEN 'episode' THEN (SELECT max(pg_column_size(e.*))::int FROM episode e) ELSE (SELECT max(pg_column_size(f.*))::int FROM fact f) END AS row_bytes,
              pg_relation_size(c.reltoastrelid)::int AS toast_bytes
       FROM unnest(ARRAY['episode', 'fact']) AS t(tbl) JOIN pg_class c ON c.oid = t.tbl::regclass`,
    );
    for (const row of rows) {
      // Rows past PostgreSQL's default threshold (about 2 kB), yet nothing moved out.
      expect(row.rows).toBe(20);
      expect(row.row_bytes).toBeGreaterThan(2100);
      expect({ tbl: row.tbl, toast_bytes: row.toast_bytes }).toEqual({ tbl: row.tbl, toast_bytes: 0 });
    }
  });
});
