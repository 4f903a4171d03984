import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { startPgliteServer, type PgliteServer } from '../core/embedded/pgliteServer.js';
import { READ_APPLICATION_NAME } from '../core/db/applicationName.js';
import { startEmbeddedPostgres, startEphemeralPostgres } from '../core/embedded/postgres.js';

// The embedded default serves ONE PGlite session to several pool connections;
// these check that their statements and transactions never interleave.
describe('PGlite over the loopback socket', () => {
  let db: PGlite;
  let server: PgliteServer;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await PGlite.create({ dataDir: 'memory://' });
    server = await startPgliteServer(db);
    pool = new pg.Pool({ connectionString: server.url, max: 5 });
    await pool.query('CREATE TABLE item (id int PRIMARY KEY, body text NOT NULL)');
  });

  afterAll(async () => {
    await pool.end();
    await server.stop();
    await db.close();
  });

  it('keeps extended-protocol batches whole when a large Bind arrives in several TCP chunks', async () => {
    // A 2 MB parameter spans many socket reads; small queries of other shapes run meanwhile.
    const big = 'x'.repeat(2_000_000);
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: 120 }, async (_, i) => {
        try {
          if (i % 10 === 0) {
            await pool.query('INSERT INTO item (id, body) VALUES ($1, $2)', [i, big + i]);
          } else if (i % 2 === 0) {
            const { rows } = await pool.query<{ b: string; c: number }>('SELECT $1::text AS b, $2::int AS c', [`b${i}`, i]);
            if (rows[0].b !== `b${i}` || rows[0].c !== i) failures.push(`wrong row for ${i}`);
          } else {
            const { rows } = await pool.query<{ x: number }>('SELECT $1::int + 1 AS x', [i]);
            if (rows[0].x !== i + 1) failures.push(`wrong row for ${i}`);
          }
        } catch (err) {
          failures.push((err as Error).message);
        }
      }),
    );
    expect(failures).toEqual([]);
    const { rows } = await pool.query<{ n: number; len: number }>('SELECT count(*)::int AS n, min(length(body))::int AS len FROM item');
    expect(rows[0]).toEqual({ n: 12, len: 2_000_001 });
  });

  it("does not let another connection into an open transaction, and sees only committed data", async () => {
    const a = await pool.connect();
    const b = await pool.connect();
    try {
      await a.query('BEGIN');
      await a.query("INSERT INTO item (id, body) VALUES (1000, 'in a transaction')");
      let bDone = false;
      const bRead = b.query<{ n: number }>('SELECT count(*)::int AS n FROM item WHERE id = 1000').then((r) => {
        bDone = true;
        return r.rows[0].n;
      });
      await a.query('SELECT pg_sleep(0.2)');
      expect(bDone).toBe(false); // queued behind a's transaction, not running inside it
      await a.query('ROLLBACK');
      expect(await bRead).toBe(0);
    } finally {
      a.release();
      b.release();
    }
  });

  it("serves the read path's connections before writes that queued earlier", async () => {
    const reader = new pg.Client({ connectionString: server.url, application_name: READ_APPLICATION_NAME });
    await reader.connect(); // connected before the transaction: its start-up is not what waits
    const holder = await pool.connect();
    const write = await pool.connect();
    try {
      await holder.query('BEGIN');
      const finished: string[] = [];
      const queuedWrite = write.query('SELECT pg_sleep(0.05)').then(() => finished.push('write'));
      await new Promise((resolve) => setTimeout(resolve, 20)); // the write is in line first
      const queuedRead = reader.query('SELECT 1').then(() => finished.push('read'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await holder.query('COMMIT');
      await Promise.all([queuedWrite, queuedRead]);
      expect(finished).toEqual(['read', 'write']);
    } finally {
      holder.release();
      write.release();
      await reader.end();
    }
  });

  it('gives the session back, rolled back, when a client dies inside a transaction', async () => {
    const client = new pg.Client({ connectionString: server.url });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('BEGIN');
    await client.query("INSERT INTO item (id, body) VALUES (2000, 'never committed')");
    const ended = new Promise((resolve) => client.once('end', resolve));
    // Drop the TCP connection without a ROLLBACK or Terminate.
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    await ended;
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM item WHERE id = 2000');
    expect(rows[0].n).toBe(0);
    expect(db.isInTransaction()).toBe(false);
  });

  it('reports SQL errors to the right client and keeps serving the others', async () => {
    const a = await pool.connect();
    try {
      await a.query('BEGIN');
      await expect(a.query('SELECT 1/0')).rejects.toThrow(/division by zero/);
      const other = pool.query<{ one: number }>('SELECT 1 AS one');
      await a.query('ROLLBACK');
      expect((await other).rows[0].one).toBe(1);
    } finally {
      a.release();
    }
  });
});

describe('embedded Postgres on disk', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-pglite-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('has pgvector and pg_trgm, and keeps data across a stop and start', async () => {
    const first = await startEmbeddedPostgres(dataDir);
    const c1 = new pg.Client({ connectionString: first.url });
    await c1.connect();
    await c1.query('CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await c1.query('CREATE TABLE v (id int PRIMARY KEY, e vector(3))');
    await c1.query("INSERT INTO v VALUES (1, '[1,0,0]'), (2, '[0,1,0]')");
    const { rows: sim } = await c1.query<{ s: number }>("SELECT similarity('berlin', 'berlin!') AS s");
    expect(sim[0].s).toBeGreaterThan(0.5);
    await c1.end();
    await first.stop();

    const second = await startEmbeddedPostgres(dataDir);
    const c2 = new pg.Client({ connectionString: second.url });
    await c2.connect();
    const { rows } = await c2.query<{ id: number }>("SELECT id FROM v ORDER BY e <=> '[0.9,0.1,0]' LIMIT 1");
    expect(rows).toEqual([{ id: 1 }]);
    await c2.end();
    await second.stop();
  });
});

describe('embedded Postgres in its own thread', () => {
  it('starts databases at once from one set of compiled modules, the way every test database starts', async () => {
    // The test environment compiles PGlite's modules once per Jest worker (test/support/nodeEnvironment.mjs).
    expect(globalThis.mnemoSharedPgliteArtifacts).toBeDefined();
    const artifacts = await globalThis.mnemoSharedPgliteArtifacts!();
    // From initdb (initdb.wasm) and side by side: each thread instantiates the same compiled module.
    const databases = await Promise.all([startEphemeralPostgres({ artifacts }), startEphemeralPostgres({ artifacts })]);
    try {
      for (const [i, postgres] of databases.entries()) {
        const client = new pg.Client({ connectionString: postgres.url });
        await client.connect();
        try {
          await client.query('CREATE EXTENSION IF NOT EXISTS vector');
          await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
          const { rows } = await client.query<{ near: number; alike: boolean }>(
            `SELECT ('[1,2,3]'::vector <-> '[1,2,${3 + i}]'::vector) AS near, similarity('Oslo', 'Olso') > 0.1 AS alike`,
          );
          expect(rows).toEqual([{ near: i, alike: true }]);
        } finally {
          await client.end();
        }
      }
    } finally {
      await Promise.all(databases.map((postgres) => postgres.stop()));
    }
  });

  it('saves a database on stop and starts a new one as it was (what each test database is copied from)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-pglite-save-'));
    const saved = path.join(dir, 'saved.tar');
    try {
      const first = await startEphemeralPostgres();
      const writer = new pg.Client({ connectionString: first.url });
      await writer.connect();
      await writer.query('CREATE EXTENSION IF NOT EXISTS vector');
      await writer.query('CREATE TABLE kept (id int PRIMARY KEY, v vector(3))');
      await writer.query("INSERT INTO kept VALUES (1, '[1,2,3]'), (2, '[3,2,1]')");
      await writer.end();
      await first.stop({ saveTo: saved });

      const second = await startEphemeralPostgres({ loadDataDir: saved });
      const reader = new pg.Client({ connectionString: second.url });
      try {
        await reader.connect();
        const { rows } = await reader.query<{ id: number }>("SELECT id FROM kept ORDER BY v <-> '[1,2,3]' LIMIT 1");
        expect(rows).toEqual([{ id: 1 }]);
        // A copy, not the same database: writes to it leave the saved one as it was.
        await reader.query('DELETE FROM kept');
      } finally {
        await reader.end();
        await second.stop();
      }
      const third = await startEphemeralPostgres({ loadDataDir: saved });
      const again = new pg.Client({ connectionString: third.url });
      try {
        await again.connect();
        expect((await again.query<{ n: number }>('SELECT count(*)::int AS n FROM kept')).rows).toEqual([{ n: 2 }]);
      } finally {
        await again.end();
        await third.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
