import { useMigratedPool } from './support/db.js';
import { insertEntity, insertEpisode, insertFact } from './support/graphFixtures.js';
import { itServerOnly } from './support/serverOnly.js';

/** The largest pending list (in pages of 8 kB) a GIN index may hold: gin_pending_list_limit's minimum, 64 kB. */
const MAX_PENDING_PAGES = 8;

const WORDS = `harbour lantern orchard violin glacier meadow compass falcon ember quartz willow canyon saffron
  thimble nebula cobalt juniper marble pepper tundra velvet walnut zephyr anchor bramble cinder dune fjord`.split(/\s+/);

/** A sentence of eight distinct words out of WORDS, different for each i. */
const sentence = (i: number) => Array.from({ length: 8 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' ') + ` note ${i}.`;

/** A chat turn of about 700 characters: with PostgreSQL's default, enough to push its embedding out of the row. */
const turn = (i: number) =>
  `Turn ${i}: we spent the morning going through the quarterly roadmap, then argued about whether the mobile release should wait ` +
  `for the payments rewrite or ship with the old checkout. Priya thinks the risk is in the migration scripts, not in the app, ` +
  `and wants a dry run on a copy of production first. Marco agreed to write the rollback plan by Thursday, and I promised to ` +
  `ask the support team which complaints they hear most about checkout, so that we know what the rewrite has to fix first. ` +
  `After lunch the design review ran long again; we still have not settled the onboarding flow, and the copy is not final.`;

/**
 * How rows and indexes are stored for the read path, on data written the way the API writes it (row by row):
 * GIN indexes without a pending list to read, and embeddings kept in their rows (migrations
 * 20261129000000_gin_without_pending_list and 20261129010000_embeddings_inline).
 */
describe('read-path storage', () => {
  const pool = useMigratedPool('mnemo_storage');

  // Every search of a GIN index reads its whole pending list; PostgreSQL's default lets it grow to 4 MB.
  it('every GIN index either has no pending list or one bounded at 64 kB', async () => {
    const { rows } = await pool().query<{ index: string; options: string[] | null }>(
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
    await pool().query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
    const pending = async (index: string) =>
      (await pool().query<{ pages: number }>('SELECT (pgstatginindex($1::regclass)).pending_pages::int AS pages', [index])).rows[0].pages;
    // About 6,000 new index entries: under PostgreSQL's default over a hundred pending pages.
    for (let i = 0; i < 600; i++) {
      await insertEpisode(pool(), { namespace: 'gin', content: sentence(i), occurredAt: new Date(Date.UTC(2026, 0, 1, 0, i)) });
      if (i % 10 === 0) await insertEntity(pool(), { namespace: 'gin', name: `${WORDS[i % WORDS.length]} ${WORDS[(i + 5) % WORDS.length]} ${i}`, aliases: [`alias ${i}`] });
    }
    expect(await pending('episode_tsv_idx')).toBeLessThanOrEqual(MAX_PENDING_PAGES);
    expect(await pending('entity_name_trgm_idx')).toBe(0);
    expect(await pending('entity_aliases_idx')).toBe(0);
    // And what is written is found: the index answers from its pending list and its tree alike.
    const { rows } = await pool().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM episode WHERE namespace = 'gin' AND content_tsv @@ to_tsquery('english', 'nebula')`,
    );
    const expected = Array.from({ length: 600 }, (_, i) => sentence(i)).filter((s) => s.split(' ').includes('nebula')).length;
    expect(rows[0].n).toBe(expected);
  }, 120_000);

  it('keeps long turns and their facts whole, with nothing in the TOAST tables', async () => {
    const subject = await insertEntity(pool(), { namespace: 'inline', name: 'Priya' });
    for (let i = 0; i < 20; i++) {
      const episodeId = await insertEpisode(pool(), { namespace: 'inline', content: turn(i), occurredAt: new Date(Date.UTC(2026, 0, 1, i)) });
      await insertFact(pool(), {
        namespace: 'inline', subjectId: subject, predicate: 'said', family: 'other', episodeIds: [episodeId],
        factText: turn(i).slice(0, 420),
      });
    }
    for (const table of ['episode', 'fact']) {
      const { rows } = await pool().query<{ rows: number; row_bytes: number; toast_bytes: number }>(
        `SELECT count(*)::int AS rows, max(pg_column_size(t.*))::int AS row_bytes,
                pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE oid = $1::regclass))::int AS toast_bytes
         FROM ${table} t WHERE namespace = 'inline'`,
        [table],
      );
      // Rows past PostgreSQL's default threshold (about 2 kB), yet nothing moved out.
      expect(rows[0].rows).toBe(20);
      expect(rows[0].row_bytes).toBeGreaterThan(2100);
      expect({ table, toast_bytes: rows[0].toast_bytes }).toEqual({ table, toast_bytes: 0 });
    }
  });
});
