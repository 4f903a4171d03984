import { readFile, writeFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { startPgliteServer } from './pgliteServer.js';

// The project's lib (ES2023, no DOM) types WebAssembly's namespace but not its classes as values.
const { Module: WasmModule } = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => WebAssembly.Module } }).WebAssembly;
const wasmModule = z.custom<WebAssembly.Module>((value) => value instanceof WasmModule, 'a compiled WebAssembly.Module');

/** PGlite's `pgliteWasmModule`, `initdbWasmModule` and `fsBundle` options (pglite.wasm, initdb.wasm, pglite.data). */
export const pgliteArtifacts = z.object({
  pgliteWasmModule: wasmModule,
  initdbWasmModule: wasmModule,
  fsBundle: z.instanceof(Uint8Array),
});
export type PgliteArtifacts = z.infer<typeof pgliteArtifacts>;

/**
 * The body of PGlite's own thread (see postgres.ts for why it has one): opens
 * the database, serves it on a loopback port, reports the URL, and on `stop`
 * closes the server and then the database so everything written is on disk.
 */
export const pgliteThreadInput = z.object({
  dataDir: z.string().min(1),
  host: z.string().min(1),
  /** A tarball written by a `stop` with `saveTo`: the database starts as that one was (no initdb, no migrations). */
  loadDataDir: z.string().min(1).optional(),
  /** PGlite's WebAssembly modules and file-system bundle, compiled and read once (see EphemeralPostgresOptions). */
  artifacts: pgliteArtifacts.optional(),
});
export type PgliteThreadInput = z.infer<typeof pgliteThreadInput>;

/** Stops serving; with `saveTo`, first writes the whole data directory there as an uncompressed tarball. */
export const pgliteThreadStop = z.object({ type: z.literal('stop'), saveTo: z.string().min(1).optional() });
export type PgliteThreadStop = z.infer<typeof pgliteThreadStop>;

export type PgliteThreadReport = { type: 'ready'; url: string } | { type: 'failed'; message: string } | { type: 'stopped' };

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

async function serve(port: NonNullable<typeof parentPort>): Promise<void> {
  const { dataDir, host, loadDataDir, artifacts } = pgliteThreadInput.parse(workerData);
  const report = (message: PgliteThreadReport) => port.postMessage(message);
  let db: PGlite | undefined;
  try {
    const saved = loadDataDir ? new Blob([await readFile(loadDataDir)]) : undefined;
    const compiled = artifacts ? { pgliteWasmModule: artifacts.pgliteWasmModule, initdbWasmModule: artifacts.initdbWasmModule, fsBundle: new Blob([artifacts.fsBundle]) } : {};
    db = await PGlite.create({ dataDir, extensions: { vector, pg_trgm }, ...compiled, ...(saved ? { loadDataDir: saved } : {}) });
    const opened = db;
    const server = await startPgliteServer(opened, { host, port: 0 });
    port.once('message', (message: unknown) => {
      void (async () => {
        try {
          const { saveTo } = pgliteThreadStop.parse(message);
          await server.stop();
          if (saveTo) await writeFile(saveTo, Buffer.from(await (await opened.dumpDataDir('none')).arrayBuffer()));
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
