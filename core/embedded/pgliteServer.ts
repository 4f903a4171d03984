import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import {
  deallocateSql,
  renameStatement,
  sessionSettingChange,
  settingsSwitchSql,
  simpleQueryText,
  startupSettings,
  type SettingChange,
} from './sessionState.js';
import { READ_APPLICATION_NAME } from '../db/applicationName.js';
import { SessionLock } from './sessionLock.js';

/**
 * Serves one PGlite instance over the Postgres wire protocol on a loopback port,
 * so the app (pg.Pool, Prisma, the worker) uses it like any Postgres server.
 *
 * Why not `@electric-sql/pglite-socket`'s server: PGlite is ONE backend session,
 * and pglite-socket queues individual protocol messages. A large Bind (a 1 MB
 * memory) arrives in several TCP chunks, so another connection's Parse can run
 * between this connection's Parse and Bind and replace the shared unnamed
 * statement ("bind message supplies 2 parameters, but prepared statement ""
 * requires 1", reproduced here; upstream electric-sql/pglite#1046). Here a
 * connection's messages run as whole batches (up to Sync or a simple Query), and
 * a connection that leaves the session inside a transaction (or mid-batch after
 * a Flush) keeps it until it is done, so transactions of different pool
 * connections never interleave.
 *
 * Session state the connections would otherwise share (prepared statement
 * names, settings) is kept per connection: see sessionState.ts for each kind.
 * Between batches the session goes to the read path's connections first
 * (sessionLock.ts).
 *
 * The price of one session: a connection waiting for another connection's
 * transaction waits for its COMMIT. Code must not hold a transaction open while
 * awaiting a query on a different connection (that would deadlock here, and only
 * here).
 */
export interface PgliteServer {
  host: string;
  port: number;
  url: string;
  stop(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

// Messages after which the backend answers and the client waits: a batch ends here.
const BATCH_END = new Set(['S', 'Q']);
// Messages the client may send without a Sync and then wait for an answer (the batch stays open).
const OPEN_END = new Set(['H', 'p', 'd', 'c', 'f']);

interface Conn {
  id: number;
  socket: Socket;
  buffer: Buffer;
  started: boolean;
  /** Ended its last batch without a Sync (Flush, COPY, auth): keeps the session. */
  midBatch: boolean;
  /** This connection's batches run one after another. */
  chain: Promise<void>;
  /** Settings from its start-up packet, and those it has now (after its own SET/RESET). */
  startup: Map<string, string>;
  settings: Map<string, string>;
  /** Its prepared statements, by session-wide name. */
  statements: Set<string>;
  /** A read path connection (application_name READ_APPLICATION_NAME): served first (see SessionLock). */
  readsFirst: boolean;
}

/** What a batch does to the connection's session state, applied after it ran. */
interface BatchEffects {
  created: string[];
  closed: string[];
  setting: SettingChange | null;
}

const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);

/**
 * Reads the session serves in a row while writes or extraction wait: one of
 * theirs follows every three (a 2x overload: answered reads' p99 0.34-0.46 s
 * against 0.61-0.85 s first come, first served).
 */
const READS_IN_A_ROW = 3;

export async function startPgliteServer(db: PGlite, options: { host?: string; port?: number } = {}): Promise<PgliteServer> {
  const host = options.host ?? '127.0.0.1';
  const lock = new SessionLock<Conn>(READS_IN_A_ROW);
  const conns = new Set<Conn>();
  let closing = false;
  let nextConnId = 1;
  /** The settings the session has now, as far as the wire layer applied them. */
  let applied = new Map<string, string>();

  /** Gives the session the settings of the connection about to run. */
  async function switchSettings(conn: Conn): Promise<void> {
    const sql = settingsSwitchSql(applied, conn.settings);
    if (sql === null) return;
    try {
      await db.exec(sql);
      applied = new Map(conn.settings);
    } catch (err) {
      applied = new Map();
      await db.exec('RESET ALL').catch(() => undefined);
      throw err;
    }
  }

  /** Records a connection's own SET/RESET (after it ran outside a transaction) so later switches keep it. */
  async function recordSetting(conn: Conn, change: SettingChange): Promise<void> {
    if (change.kind === 'reset-all') {
      applied = new Map();
      conn.settings = new Map(conn.startup);
    } else if (change.kind === 'reset') {
      applied.delete(change.name);
      const startupValue = conn.startup.get(change.name);
      if (startupValue === undefined) conn.settings.delete(change.name);
      else conn.settings.set(change.name, startupValue);
    } else {
      // The value the session has now: a SET that failed leaves it unchanged.
      const { rows } = await db.query<{ v: string | null }>('SELECT current_setting($1, true) AS v', [change.name]);
      const value = rows[0]?.v;
      if (value === null || value === undefined) return;
      const quoted = `'${value.replace(/'/g, "''")}'`;
      conn.settings.set(change.name, quoted);
      applied.set(change.name, quoted);
    }
  }

  async function run(conn: Conn, message: Buffer, isBatchEnd: boolean, effects: BatchEffects): Promise<void> {
    await lock.acquire(conn);
    try {
      await switchSettings(conn);
      await db.runExclusive(() =>
        db.execProtocolRawStream(new Uint8Array(message), {
          onRawData: (data) => {
            if (!conn.socket.destroyed) conn.socket.write(Buffer.from(data));
          },
        }),
      );
      conn.midBatch = !isBatchEnd;
      for (const name of effects.created) conn.statements.add(name);
      for (const name of effects.closed) conn.statements.delete(name);
      if (effects.setting && !db.isInTransaction()) await recordSetting(conn, effects.setting);
    } finally {
      if (!conn.midBatch && !db.isInTransaction()) lock.release(conn);
    }
  }

  /**
   * Leaves the session clean for the next connection when one goes away: ends
   * what it left mid-batch or mid-transaction and deallocates its statements.
   */
  async function reset(conn: Conn): Promise<void> {
    lock.forget(conn);
    if (closing || (!lock.ownedBy(conn) && conn.statements.size === 0)) return;
    await lock.acquire(conn);
    try {
      if (conn.midBatch) {
        await db.runExclusive(() => db.execProtocolRawStream(new Uint8Array(SYNC), { onRawData: () => undefined }));
      }
      if (db.isInTransaction()) await db.exec('ROLLBACK');
      // Only those that exist: a Parse that failed created nothing.
      const { rows } = await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE name = ANY($1)', [[...conn.statements]]);
      conn.statements.clear();
      const deallocate = deallocateSql(rows.map((r) => r.name));
      if (deallocate) await db.exec(deallocate);
    } finally {
      conn.midBatch = false;
      lock.release(conn);
    }
  }

  /** Splits the buffer into whole messages and queues each batch; returns false when the connection should close. */
  function drain(conn: Conn): boolean {
    let batch: Buffer[] = [];
    /** The original bytes of `batch`, put back when no batch end arrived yet. */
    let pending: Buffer[] = [];
    let effects: BatchEffects = { created: [], closed: [], setting: null };
    const flush = (isBatchEnd: boolean) => {
      const message = Buffer.concat(batch);
      const done = effects;
      batch = [];
      pending = [];
      effects = { created: [], closed: [], setting: null };
      conn.chain = conn.chain.then(() => run(conn, message, isBatchEnd, done));
    };
    for (;;) {
      if (!conn.started) {
        if (conn.buffer.length < 8) break;
        const length = conn.buffer.readInt32BE(0);
        if (conn.buffer.length < length) break;
        const code = conn.buffer.readInt32BE(4);
        const frame = conn.buffer.subarray(0, length);
        conn.buffer = conn.buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          conn.socket.write('N'); // no encryption on loopback
          continue;
        }
        if (code === CANCEL_REQUEST) return false; // one session: nothing to cancel
        conn.started = true;
        conn.startup = startupSettings(Buffer.from(frame));
        conn.settings = new Map(conn.startup);
        conn.readsFirst = conn.startup.get('application_name') === `'${READ_APPLICATION_NAME}'`;
        batch.push(Buffer.from(frame));
        flush(true);
        continue;
      }
      if (conn.buffer.length < 5) break;
      const type = String.fromCharCode(conn.buffer[0]);
      const length = 1 + conn.buffer.readInt32BE(1);
      if (conn.buffer.length < length) break;
      const raw = Buffer.from(conn.buffer.subarray(0, length));
      conn.buffer = conn.buffer.subarray(length);
      if (type === 'X') {
        if (batch.length) flush(false);
        return false;
      }
      let renamed;
      try {
        renamed = renameStatement(conn.id, type, raw);
      } catch {
        return false; // a malformed message: a real server drops the connection too
      }
      if (renamed.created) effects.created.push(renamed.created);
      if (renamed.closed) effects.closed.push(renamed.closed);
      if (type === 'Q') effects.setting = sessionSettingChange(simpleQueryText(raw));
      batch.push(renamed.frame);
      pending.push(raw);
      if (BATCH_END.has(type)) flush(true);
      else if (OPEN_END.has(type)) flush(false);
    }
    // Whole messages without a terminator yet (a pipelined Parse/Bind before its Sync) wait for the rest;
    // they are re-read (and renamed again from their original form) when it arrives.
    if (batch.length) conn.buffer = Buffer.concat([...pending, conn.buffer]);
    return true;
  }

  function onConnection(socket: Socket): void {
    if (closing) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    const conn: Conn = {
      id: nextConnId++,
      socket,
      buffer: Buffer.alloc(0),
      started: false,
      midBatch: false,
      chain: Promise.resolve(),
      startup: new Map(),
      settings: new Map(),
      statements: new Set(),
      readsFirst: false,
    };
    conns.add(conn);
    const close = () => {
      if (!conns.delete(conn)) return;
      socket.destroy();
      // After this connection's queued batches finish, give the session back clean.
      conn.chain = conn.chain
        .catch(() => undefined)
        .then(() => reset(conn))
        .catch(() => undefined); // the server is stopping: nothing left to clean
    };
    socket.on('data', (chunk: Buffer) => {
      conn.buffer = conn.buffer.length ? Buffer.concat([conn.buffer, chunk]) : chunk;
      if (!drain(conn)) {
        conn.chain.finally(close).catch(() => undefined);
        return;
      }
      conn.chain = conn.chain.catch((err: unknown) => {
        // A failure inside PGlite itself (not an SQL error, those are protocol replies): drop the client.
        socket.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
    socket.on('error', close);
    socket.on('close', close);
  }

  const server: Server = createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('PGlite server has no TCP address');
  const port = address.port;

  return {
    host,
    port,
    url: `postgresql://postgres:postgres@${host}:${port}/postgres`,
    async stop() {
      closing = true;
      lock.denyAll(new Error('PGlite server is stopping'));
      const pending = [...conns].map((c) => c.chain.catch(() => undefined));
      for (const conn of conns) conn.socket.destroy();
      conns.clear();
      // Lets a batch already running inside PGlite finish before the caller closes the database.
      await Promise.all(pending);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (db.isInTransaction()) await db.exec('ROLLBACK');
    },
  };
}
