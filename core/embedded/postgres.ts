import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { startPgliteServer } from './pgliteServer.js';

export interface EmbeddedPostgres {
  /** postgres:// URL of the loopback server. */
  url: string;
  /** Stops serving and closes PGlite so everything written is on disk. */
  stop(): Promise<void>;
}

/** PGlite (with pgvector and pg_trgm, which the migrations create) under `<dataDir>/pg`, served on a free loopback port. */
export async function startEmbeddedPostgres(dataDir: string, host = '127.0.0.1'): Promise<EmbeddedPostgres> {
  const pgDir = path.join(dataDir, 'pg');
  mkdirSync(pgDir, { recursive: true });
  return servePglite(pgDir, host);
}

/** The same in memory only (gone when stopped): one per test database on the embedded default of `npm test`. */
export function startEphemeralPostgres(host = '127.0.0.1'): Promise<EmbeddedPostgres> {
  return servePglite('memory://', host);
}

async function servePglite(dataDir: string, host: string): Promise<EmbeddedPostgres> {
  const db = await PGlite.create({ dataDir, extensions: { vector, pg_trgm } });
  let server;
  try {
    server = await startPgliteServer(db, { host, port: 0 });
  } catch (err) {
    await db.close();
    throw err;
  }
  const running = server;
  return {
    url: running.url,
    async stop() {
      await running.stop();
      await db.close();
    },
  };
}
