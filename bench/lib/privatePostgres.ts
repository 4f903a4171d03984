// A PostgreSQL cluster of the run's own (initdb into a temp folder, its own
// port and socket), so a chaos run can restart it without touching a server
// other people use. Needs the PostgreSQL binaries (initdb, pg_ctl) and
// pgvector installed for that major version.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { portForLater } from '../../core/embedded/ports.js';

const run = promisify(execFile);

/** Where initdb and pg_ctl live: PG_BIN_DIR, `pg_config --bindir`, else the newest /usr/lib/postgresql/<major>/bin. */
export function findPostgresBinDir(explicit = process.env.PG_BIN_DIR): string {
  const candidates: string[] = [];
  if (explicit) candidates.push(explicit);
  try {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch {
    // not a Debian-style layout
  }
  for (const dir of ['/usr/local/pgsql/bin', '/usr/bin']) candidates.push(dir);
  const found = candidates.find((dir) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')));
  if (found) return found;
  throw new Error(
    `PostgreSQL server binaries (initdb, pg_ctl) not found in ${candidates.join(', ')}: install PostgreSQL 15 with pgvector ` +
      '(scripts/setup-machine.sh) or set PG_BIN_DIR to the folder holding initdb',
  );
}

export interface PrivatePostgres {
  port: number;
  /** Data folder (also holds the Unix socket). */
  dir: string;
  /** postgresql:// URL of database `name` on this cluster. */
  url(name: string): string;
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl restart -m fast`: every connection is cut, the server is back when it resolves. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** initdb + start on a free port; as root the server runs as the `postgres` OS user (PostgreSQL refuses root). */
export async function startPrivatePostgres(options: { binDir?: string } = {}): Promise<PrivatePostgres> {
  const binDir = options.binDir ?? findPostgresBinDir();
  const asRoot = process.getuid?.() === 0;
  // As root, the `postgres` user must reach the folder: TMPDIR may sit inside a private (0700) folder of root's
  // (CI's newcomer pass), so the cluster goes straight under /tmp there.
  const base = mkdtempSync(path.join(asRoot ? '/tmp' : os.tmpdir(), 'mnemo-pg-'));
  const dir = path.join(base, 'data');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
      throw new Error('running as root needs a `postgres` OS user to own the private PostgreSQL cluster');
    });
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(base, Number(stdout.trim()), Number(gid.trim()));
  }
  const pgRun = (bin: string, args: string[]) =>
    // cwd: the postgres user may not be allowed into the caller's working directory.
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(binDir, bin), ...args], { cwd: base }) : run(path.join(binDir, bin), args);

  await pgRun('initdb', ['-D', dir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  // Restarted on this port by the chaos run: kept out of the ephemeral range (core/embedded/ports.ts).
  const port = await portForLater();
  const serverOptions = `-p ${port} -k ${base} -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=64MB`;
  await pgRun('pg_ctl', ['-D', dir, '-o', serverOptions, '-l', path.join(base, 'server.log'), '-w', '-t', '60', 'start']);
  process.once('exit', () => {
    // Never leave a server behind when the run dies (best effort, synchronous exit handler).
    try {
      process.kill(Number(readPostmasterPid(dir)), 'SIGQUIT');
    } catch {
      // already gone
    }
  });

  const url = (name: string) => `postgresql://postgres@127.0.0.1:${port}/${name}`;
  return {
    port,
    dir,
    url,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name must be a plain identifier, got "${name}"`);
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async restart() {
      // -l: the new server must not inherit this call's stdout pipe (the call would never end).
      await pgRun('pg_ctl', ['-D', dir, '-m', 'fast', '-l', path.join(base, 'server.log'), '-w', '-t', '60', 'restart']);
    },
    async stop() {
      await pgRun('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

function readPostmasterPid(dir: string): string {
  // The first line of postmaster.pid is the server's pid.
  return readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0];
}
