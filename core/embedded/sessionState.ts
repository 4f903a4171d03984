import { createHash } from 'node:crypto';

/**
 * Session state on the embedded default, where every client connection shares
 * PGlite's ONE backend session (see pgliteServer.ts). What a real server keeps
 * per connection, and how each is made per connection here:
 *
 * - Transactions: a connection that ends a batch inside a transaction keeps the
 *   session until COMMIT/ROLLBACK (SessionLock in pgliteServer.ts), so
 *   transactions of different connections never interleave, and one that dies
 *   mid-transaction is rolled back before the next connection runs.
 * - Named prepared statements (the read path's `mnemo_read_…`, any library's
 *   `{ name }` queries): the wire layer renames them per connection in Parse,
 *   Bind, Describe and Close (`mapStatementName`), so two connections preparing
 *   the same name never collide (42P05), each sees only its own, and a closing
 *   connection's statements are deallocated. Chosen over unnamed statements in
 *   embedded mode by measurement: on a small namespace (24 extracted memories),
 *   sequential search p50 was 8.5–17.8 ms named vs 13.5–24.4 ms unnamed and
 *   context p50 3.6–6.8 ms vs 6.1–10.7 ms over five alternating runs each (a
 *   busy 2-core machine; bursts of 40 parallel searches came out even), since
 *   PGlite, like a server, then plans the read path's CTE-heavy statements once
 *   per connection (generic plans) instead of on every request.
 *   SQL-level PREPARE/EXECUTE/DEALLOCATE and DISCARD are not renamed: the app
 *   does not use them.
 * - Settings: start-up parameters (pg's `options: '-c name=value'`,
 *   `statement_timeout`, `application_name`, …: the read pool's generic plans and
 *   HNSW iterative scans, the telemetry pool's `synchronous_commit=off`) and a
 *   plain `SET name = value` / `RESET name` / `RESET ALL` sent on its own are
 *   remembered per connection and re-applied whenever the session passes to a
 *   connection whose settings differ (`settingsSwitchSql`). PGlite itself ignores
 *   start-up parameters. Inside transactions the app uses `SET LOCAL` /
 *   `set_config(…, true)`, which end with the transaction and so stay private.
 * - Advisory locks: transaction-level locks (`pg_advisory_xact_lock`, taken by
 *   commits and forget) are trivially exclusive: no other connection runs until
 *   the holder's transaction ends. Session-level locks (`pg_advisory_lock`, only
 *   migrate's) are re-entrant within the one session, so they exclude nothing
 *   between connections of one process; one process per data folder
 *   (processLock.ts) is what keeps two migrations apart.
 * - Temporary tables: shared by all connections and kept until the server
 *   stops. The app creates none; code that needs one creates it inside a
 *   transaction with `ON COMMIT DROP`.
 * - LISTEN/NOTIFY: a notification reaches whichever connection happens to be
 *   running at commit, not its listeners. Measured: with connection A having
 *   run `LISTEN thread_message` and connection B sending `NOTIFY` and
 *   `pg_notify(…)`, B received both notifications and A none, also after A ran
 *   further statements. So the app uses none: threads' SSE streams
 *   (core/threads/streamHub.ts) poll by seq with one shared poller per API
 *   process (THREAD_POLL_INTERVAL_MS, default 250 ms), the same path on both
 *   databases; tests that need notifications between sessions are server-only
 *   (`itServerOnly`).
 * - Waiting on another session (lock waits, races between transactions): there
 *   is only one session, so a connection waits for the whole of another's
 *   transaction instead. Code must never hold a transaction open while awaiting
 *   a statement on another connection (a deadlock here, and only here).
 */

/** Start-up packet keys that are not settings. */
const NOT_SETTINGS = new Set(['user', 'database', 'replication', 'options']);

/** Quotes a value as an SQL string literal. */
function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** Quotes a setting name as an identifier (dotted custom names part by part). */
function settingName(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}

/**
 * Settings a start-up packet asks for, as name → SQL value text. `frame` is
 * the whole packet (length, protocol version, then key\0value\0 pairs).
 */
export function startupSettings(frame: Buffer): Map<string, string> {
  const settings = new Map<string, string>();
  const parts = frame.subarray(8).toString('utf8').split('\0');
  for (let i = 0; i + 1 < parts.length && parts[i] !== ''; i += 2) {
    const key = parts[i];
    const value = parts[i + 1];
    if (key === 'options') {
      for (const [name, v] of parseOptions(value)) settings.set(name.toLowerCase(), literal(v));
    } else if (!NOT_SETTINGS.has(key)) {
      settings.set(key.toLowerCase(), literal(value));
    }
  }
  return settings;
}

/** `-c a=b -c c=d --e=f` (backslash escapes a space). */
function parseOptions(options: string): Array<[string, string]> {
  const tokens = options.match(/(?:\\.|\S)+/g)?.map((t) => t.replace(/\\(.)/g, '$1')) ?? [];
  const out: Array<[string, string]> = [];
  for (let i = 0; i < tokens.length; i++) {
    let assignment: string | undefined;
    if (tokens[i] === '-c') assignment = tokens[++i];
    else if (tokens[i].startsWith('-c')) assignment = tokens[i].slice(2);
    else if (tokens[i].startsWith('--')) assignment = tokens[i].slice(2);
    const eq = assignment?.indexOf('=') ?? -1;
    if (assignment && eq > 0) out.push([assignment.slice(0, eq).replace(/-/g, '_'), assignment.slice(eq + 1)]);
  }
  return out;
}

export type SettingChange = { kind: 'set'; name: string; value: string } | { kind: 'reset'; name: string } | { kind: 'reset-all' };

/**
 * A simple-protocol query that only changes a session setting: `SET [SESSION]
 * name {=|TO} value`, `RESET name`, `RESET ALL`. Anything else (SET LOCAL,
 * several statements, SET inside a larger script) is not a session change the
 * wire layer tracks.
 */
export function sessionSettingChange(sql: string): SettingChange | null {
  const text = sql.trim().replace(/;\s*$/, '');
  if (text.includes(';')) return null;
  const set = /^set\s+(?:session\s+)?(?!local\s)([a-z_][\w.]*)\s*(?:=|\s+to\s+)\s*([\s\S]+)$/i.exec(text);
  if (set) return { kind: 'set', name: set[1].toLowerCase(), value: set[2].trim() };
  if (/^reset\s+all$/i.test(text)) return { kind: 'reset-all' };
  const reset = /^reset\s+([a-z_][\w.]*)$/i.exec(text);
  if (reset) return { kind: 'reset', name: reset[1].toLowerCase() };
  return null;
}

/** SQL that turns the session's `applied` settings into `wanted` (null when they match). */
export function settingsSwitchSql(applied: ReadonlyMap<string, string>, wanted: ReadonlyMap<string, string>): string | null {
  const statements: string[] = [];
  for (const name of applied.keys()) if (!wanted.has(name)) statements.push(`RESET ${settingName(name)}`);
  for (const [name, value] of wanted) if (applied.get(name) !== value) statements.push(`SET ${settingName(name)} TO ${value}`);
  return statements.length ? `${statements.join(';\n')};` : null;
}

/** PostgreSQL keeps NAMEDATALEN - 1 bytes of a statement name. */
const MAX_NAME_BYTES = 63;

/** The session-wide name of connection `connId`'s prepared statement `name` (the unnamed statement stays unnamed). */
export function mapStatementName(connId: number, name: string): string {
  if (name === '') return name;
  const mapped = `c${connId}_${name}`;
  if (Buffer.byteLength(mapped) <= MAX_NAME_BYTES) return mapped;
  return `c${connId}_h${createHash('sha1').update(name).digest('hex').slice(0, 40)}`;
}

function readCString(buf: Buffer, offset: number): [string, number] {
  const end = buf.indexOf(0, offset);
  if (end < 0) throw new Error('malformed protocol message: unterminated string');
  return [buf.toString('utf8', offset, end), end + 1];
}

function frameOf(type: string, body: Buffer[]): Buffer {
  const length = 4 + body.reduce((n, b) => n + b.length, 0);
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(length, 1);
  return Buffer.concat([head, ...body]);
}

const cstring = (s: string) => Buffer.from(`${s}\0`, 'utf8');

export interface StatementRename {
  frame: Buffer;
  /** A statement this message creates (Parse) or closes (Close 'S'), by its mapped name. */
  created?: string;
  closed?: string;
}

/**
 * Renames the prepared statement a frontend message refers to (Parse, Bind,
 * Describe 'S', Close 'S'); other messages and the unnamed statement pass unchanged.
 */
export function renameStatement(connId: number, type: string, frame: Buffer): StatementRename {
  switch (type) {
    case 'P': {
      const [name, rest] = readCString(frame, 5);
      if (name === '') return { frame };
      const mapped = mapStatementName(connId, name);
      return { frame: frameOf('P', [cstring(mapped), frame.subarray(rest)]), created: mapped };
    }
    case 'B': {
      const [portal, afterPortal] = readCString(frame, 5);
      const [name, rest] = readCString(frame, afterPortal);
      if (name === '') return { frame };
      return { frame: frameOf('B', [cstring(portal), cstring(mapStatementName(connId, name)), frame.subarray(rest)]) };
    }
    case 'D':
    case 'C': {
      const kind = String.fromCharCode(frame[5]);
      const [name] = readCString(frame, 6);
      if (kind !== 'S' || name === '') return { frame };
      const mapped = mapStatementName(connId, name);
      const renamed = frameOf(type, [Buffer.from('S', 'latin1'), cstring(mapped)]);
      return type === 'C' ? { frame: renamed, closed: mapped } : { frame: renamed };
    }
    default:
      return { frame };
  }
}

/** The SQL text of a simple Query message. */
export function simpleQueryText(frame: Buffer): string {
  return frame.toString('utf8', 5, Math.max(5, frame.length - 1));
}

/** SQL that deallocates a closed connection's statements. */
export function deallocateSql(names: Iterable<string>): string | null {
  const statements = [...names].map((n) => `DEALLOCATE "${n.replace(/"/g, '""')}"`);
  return statements.length ? `${statements.join(';\n')};` : null;
}
