import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './support/db.js';
import { insertEntity, insertEpisode } from './support/graphFixtures.js';
import { itServerOnly } from './support/serverOnly.js';

/** The largest pending list (in pages of 8 kB) a GIN index may hold: gin_pending_list_limit's minimum, 64 kB. */
const MAX_PENDING_PAGES = 8;

const WORDS = `harbour lantern orchard violin glacier meadow compass falcon ember quartz willow canyon saffron
  thimble nebula cobalt juniper marble pepper tundra velvet walnut zephyr anchor bramble cinder dune fjord`.split(/\s+/);

/** A sentence of eight distinct words out of WORDS, different for each i. */
const sentence = (i: number) => Array.from({ length: 8 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' ') + ` note ${i}.`;

describe('GIN indexes keep (almost) no pending list', () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase('mnemo_gin');
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  // Every search of a GIN index reads its whole pending list; PostgreSQL's default lets it grow to 4 MB.
  it('every GIN index either has no pending list or one bounded at 64 kB', async () => {
    const { rows } = await pool.query<{ index: string; options: string[] | null }>(
      `SELECT c.relname AS index, c.reloptions AS options
       FROM pg_class c JOIN pg_am am ON am.oid = c.relam AND am.amname = 'gin'
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
       ORDER BY c.relname`,
    );
    expect(rows.map((r) => r.index)).toEqual(expect.arrayContaining(['entity_aliases_idx', 'entity_name_trgm_idx', 'episode_tsv_idx', 'fact_tsv_idx']));
    for (const { index, options } of rows) {
      const option = (name: string) => options?.find((o) => o.startsWith(`${name}=`))?.split('=')[1];
      const bounded = option('fastupdate') === 'off' || (option('gin_pending_list_limit') !== undefined && Number(option('gin_pending_list_limit')) <= 64);
      expect({ index, bounded }).toEqual({ index, bounded: true });
    }
  });

  itServerOnly('reads pending lists with pgstattuple, which the embedded PGlite does not load', 'writes leave at most 64 kB pending and no entity entries at all', async () => {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
    const pending = async (index: string) =>
      (await pool.query<{ pages: number }>('SELECT (pgstatginindex($1::regclass)).pending_pages::int AS pages', [index])).rows[0].pages;
    // About 6,000 new index entries: under PostgreSQL's default over a hundred pending pages.
    for (let i = 0; i < 600; i++) {
      await insertEpisode(pool, { namespace: 'gin', content: sentence(i), occurredAt: new Date(Date.UTC(2026, 0, 1, 0, i)) });
      if (i % 10 === 0) await insertEntity(pool, { namespace: 'gin', name: `${WORDS[i % WORDS.length]} ${WORDS[(i + 5) % WORDS.length]} ${i}`, aliases: [`alias ${i}`] });
    }
    expect(await pending('episode_tsv_idx')).toBeLessThanOrEqual(MAX_PENDING_PAGES);
    expect(await pending('entity_name_trgm_idx')).toBe(0);
    expect(await pending('entity_aliases_idx')).toBe(0);
    // And what is written is found: the index answers from its pending list and its tree alike.
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM episode WHERE namespace = 'gin' AND content_tsv @@ to_tsquery('english', 'nebula')`,
    );
    const expected = Array.from({ length: 600 }, (_, i) => sentence(i)).filter((s) => s.split(' ').includes('nebula')).length;
    expect(rows[0].n).toBe(expected);
  }, 120_000);
});
