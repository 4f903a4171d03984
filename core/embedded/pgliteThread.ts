import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { startPgliteServer } from './pgliteServer.js';

/**
 * The body of PGlite's own thread (see postgres.ts for why it has one): opens
 * the database, serves it on a loopback port, reports the URL, and on `stop`
 * closes the server and then the database so everything written is on disk.
 */
export const pgliteThreadInput = z.object({ dataDir: z.string().min(1), host: z.string().min(1) });
export type PgliteThreadInput = z.infer<typeof pgliteThreadInput>;

export type PgliteThreadReport = { type: 'ready'; url: string } | { type: 'failed'; message: string } | { type: 'stopped' };

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

async function serve(port: NonNullable<typeof parentPort>): Promise<void> {
  const { dataDir, host } = pgliteThreadInput.parse(workerData);
  const report = (message: PgliteThreadReport) => port.postMessage(message);
  let db: PGlite | undefined;
  try {
    db = await PGlite.create({ dataDir, extensions: { vector, pg_trgm } });
    const opened = db;
    const server = await startPgliteServer(opened, { host, port: 0 });
    port.once('message', () => {
      void (async () => {
        try {
          await server.stop();
          await opened.close();
          report({ type: 'stopped' });
        } catch (err) {
          await opened.close().catch(() => undefined);
          report({ type: 'failed', message: describe(err) });
        } finally {
          port.close();
        }
      })();
    });
    report({ type: 'ready', url: server.url });
  } catch (err) {
    await db?.close().catch(() => undefined);
    report({ type: 'failed', message: describe(err) });
    port.close();
  }
}

if (parentPort) await serve(parentPort);
