import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { startPgliteServer, type PgliteServer } from '../core/embedded/pgliteServer.js';
import { mapStatementName, sessionSettingChange, settingsSwitchSql, startupSettings } from '../core/embedded/sessionState.js';

// Every connection to the embedded server shares PGlite's one session; what a
// real server keeps per connection must stay per connection here too (see
// core/embedded/sessionState.ts).
describe('per-connection session state on the one PGlite session', () => {
  let db: PGlite;
  let server: PgliteServer;

  beforeAll(async () => {
    db = await PGlite.create({ dataDir: 'memory://' });
    server = await startPgliteServer(db);
  });
  afterAll(async () => {
    await server.stop();
    await db.close();
  });

  /** One connection (a pool of one, so concurrent queries queue in the client, not deprecated pg.Client overlap). */
  function client(options?: string): pg.Pool {
    return new pg.Pool({ connectionString: server.url, max: 1, ...(options ? { options } : {}) });
  }

  it('lets two connections prepare the same statement name with different text (no 42P05), in parallel too', async () => {
    const [a, b] = [client(), client()];
    try {
      expect((await a.query({ name: 'shared', text: 'SELECT 1 AS v' })).rows).toEqual([{ v: 1 }]);
      expect((await b.query({ name: 'shared', text: 'SELECT 2 AS v' })).rows).toEqual([{ v: 2 }]);
      // Re-executions skip Parse: each connection still runs its own statement.
      const runs = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).query({ name: 'shared', text: i % 2 ? 'SELECT 1 AS v' : 'SELECT 2 AS v' })),
      );
      expect(runs.map((r) => r.rows[0].v)).toEqual(Array.from({ length: 40 }, (_, i) => (i % 2 ? 1 : 2)));
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it("deallocates a closed connection's statements", async () => {
    const a = client();
    await a.query({ name: 'leaves', text: 'SELECT 1' });
    const count = async () => (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE '%leaves'")).rows[0].n;
    expect(await count()).toBe(1);
    await a.end();
    // The server sees the socket close a moment later.
    for (let i = 0; i < 50 && (await count()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await count()).toBe(0);
  });

  it('applies start-up options per connection, as the read pool and the telemetry pool ask', async () => {
    const reader = client('-c plan_cache_mode=force_generic_plan -c work_mem=8MB');
    const writer = client();
    try {
      const show = async (c: pg.Pool) => (await c.query<{ p: string; w: string }>("SELECT current_setting('plan_cache_mode') AS p, current_setting('work_mem') AS w")).rows[0];
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => show(i % 2 ? reader : writer)));
      expect(results).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 ? { p: 'force_generic_plan', w: '8MB' } : { p: 'auto', w: '4MB' })));
    } finally {
      await Promise.all([reader.end(), writer.end()]);
    }
  });

  it('keeps a session-level SET and RESET on the connection that sent them; SET LOCAL ends with its transaction', async () => {
    // Each a single connection that SETs and RESETs on itself.
    const a = await client('-c work_mem=8MB').connect();
    const b = await client().connect();
    try {
      const workMem = async (c: pg.PoolClient) => (await c.query<{ w: string }>("SELECT current_setting('work_mem') AS w")).rows[0].w;
      await a.query("SET work_mem = '16MB'");
      expect([await workMem(b), await workMem(a), await workMem(b)]).toEqual(['4MB', '16MB', '4MB']);
      await a.query('RESET work_mem'); // back to its start-up value, as on a server
      expect([await workMem(a), await workMem(b)]).toEqual(['8MB', '4MB']);
      await a.query('BEGIN');
      await a.query("SET LOCAL work_mem = '32MB'");
      expect(await workMem(a)).toBe('32MB');
      await a.query('COMMIT');
      expect([await workMem(a), await workMem(b)]).toEqual(['8MB', '4MB']);
    } finally {
      a.release(true);
      b.release(true);
    }
  });

  it('gives transaction-level advisory locks exclusively: no other connection runs inside a holder\'s transaction', async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 6 });
    try {
      await pool.query('CREATE TABLE counter (n int NOT NULL)');
      await pool.query('INSERT INTO counter VALUES (0)');
      // Read-modify-write under pg_advisory_xact_lock: lost updates would show as a smaller total.
      await Promise.all(
        Array.from({ length: 30 }, async () => {
          const c = await pool.connect();
          try {
            await c.query('BEGIN');
            await c.query("SELECT pg_advisory_xact_lock(hashtext('counter'))");
            const { rows } = await c.query<{ n: number }>('SELECT n FROM counter');
            await c.query('UPDATE counter SET n = $1', [rows[0].n + 1]);
            await c.query('COMMIT');
          } finally {
            c.release();
          }
        }),
      );
      expect((await pool.query<{ n: number }>('SELECT n FROM counter')).rows[0].n).toBe(30);
    } finally {
      await pool.end();
    }
  });
});

describe('session state helpers', () => {
  const startup = (pairs: Record<string, string>) => {
    const body = Buffer.from(`${Object.entries(pairs).map(([k, v]) => `${k}\0${v}\0`).join('')}\0`);
    const head = Buffer.alloc(8);
    head.writeInt32BE(8 + body.length, 0);
    head.writeInt32BE(196608, 4);
    return Buffer.concat([head, body]);
  };

  it('reads settings from a start-up packet: options and other parameters, not user or database', () => {
    const settings = startupSettings(startup({ user: 'postgres', database: 'x', options: '-c hnsw.ef_search=100 -cwork_mem=8MB --statement-timeout=5s', application_name: "o'neil" }));
    expect(Object.fromEntries(settings)).toEqual({ 'hnsw.ef_search': "'100'", work_mem: "'8MB'", statement_timeout: "'5s'", application_name: "'o''neil'" });
  });

  it('recognises only plain session SET/RESET statements', () => {
    expect(sessionSettingChange("SET work_mem = '16MB';")).toEqual({ kind: 'set', name: 'work_mem', value: "'16MB'" });
    expect(sessionSettingChange('set session hnsw.ef_search to 40')).toEqual({ kind: 'set', name: 'hnsw.ef_search', value: '40' });
    expect(sessionSettingChange('RESET ALL')).toEqual({ kind: 'reset-all' });
    expect(sessionSettingChange('reset work_mem')).toEqual({ kind: 'reset', name: 'work_mem' });
    expect(sessionSettingChange("SET LOCAL work_mem = '1MB'")).toBeNull();
    expect(sessionSettingChange("SET work_mem = '1MB'; SELECT 1")).toBeNull();
    expect(sessionSettingChange('SELECT 1')).toBeNull();
  });

  it('switches settings with the fewest statements, and none when they match', () => {
    const a = new Map([['work_mem', "'8MB'"], ['plan_cache_mode', "'force_generic_plan'"]]);
    expect(settingsSwitchSql(a, new Map(a))).toBeNull();
    expect(settingsSwitchSql(a, new Map([['work_mem', "'8MB'"], ['hnsw.ef_search', "'100'"]]))).toBe(
      'RESET "plan_cache_mode";\nSET "hnsw"."ef_search" TO \'100\';',
    );
  });

  it('maps statement names per connection within the 63-byte limit, keeping the unnamed statement', () => {
    expect(mapStatementName(3, '')).toBe('');
    expect(mapStatementName(3, 'mnemo_read_0123456789abcdef0123')).toBe('c3_mnemo_read_0123456789abcdef0123');
    const long = 'x'.repeat(62);
    expect(Buffer.byteLength(mapStatementName(12, long))).toBeLessThanOrEqual(63);
    expect(mapStatementName(12, long)).not.toBe(mapStatementName(12, `${long}y`));
    expect(mapStatementName(12, long)).not.toBe(mapStatementName(13, long));
  });
});
