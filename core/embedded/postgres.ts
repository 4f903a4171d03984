import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, threadId } from 'node:worker_threads';
import type { PgliteArtifacts, PgliteThreadInput, PgliteThreadReport, PgliteThreadStop } from './pgliteThread.js';

export interface EmbeddedPostgres {
  /** postgres:// URL of the loopback server. */
  url: string;
  /**
   * Stops serving and closes PGlite so everything written is on disk. With `saveTo`, the whole database is first
   * written there as a tarball that `startEphemeralPostgres({ loadDataDir })` starts from.
   */
  stop(options?: { saveTo?: string }): Promise<void>;
}

/** PGlite (with pgvector and pg_trgm, which the migrations create) under `<dataDir>/pg`, served on a free loopback port. */
export async function startEmbeddedPostgres(dataDir: string, host = '127.0.0.1'): Promise<EmbeddedPostgres> {
  const pgDir = path.join(dataDir, 'pg');
  mkdirSync(pgDir, { recursive: true });
  return servePglite(pgDir, host);
}

export interface EphemeralPostgresOptions {
  host?: string;
  /** A tarball saved by `stop({ saveTo })`: start as that database was instead of from initdb (2-3 s of CPU less). */
  loadDataDir?: string;
  /**
   * PGlite's WebAssembly modules, compiled once, and its file-system bundle, for a process that starts many
   * databases (the tests): each thread otherwise compiles its own, and a module passed in shares its compiled and
   * optimised code across threads. 3.0 → 1.7 s of CPU per database started, stopped and queried 50 times.
   */
  artifacts?: PgliteArtifacts;
}

/** The same in memory only (gone when stopped): one per test database on the embedded default of `npm test`. */
export function startEphemeralPostgres(options: EphemeralPostgresOptions = {}): Promise<EmbeddedPostgres> {
  return servePglite('memory://', options.host ?? '127.0.0.1', options.loadDataDir, options.artifacts);
}

/**
 * PGlite runs in a thread of its own: it executes SQL synchronously inside
 * WebAssembly, so on the main thread every statement stopped the API and the
 * worker's activities for its whole duration, and the two cores served one
 * thing at a time. In its own thread it runs beside them, and the main thread
 * reaches it over loopback like any Postgres server.
 */
function servePglite(dataDir: string, host: string, loadDataDir?: string, artifacts?: PgliteArtifacts): Promise<EmbeddedPostgres> {
  const input: PgliteThreadInput = { dataDir, host, loadDataDir, artifacts };
  const thread = startThread(input);
  const exited = new Promise<number>((resolve) => thread.once('exit', resolve));
  return new Promise<EmbeddedPostgres>((resolve, reject) => {
    const failedToStart = (err: Error) => reject(err);
    thread.once('error', failedToStart);
    void exited.then((code) => reject(new Error(`the PGlite thread exited (${code}) before it was serving`)));
    thread.once('message', (report: PgliteThreadReport) => {
      // From here an error in the thread (PGlite itself failing) is not handled: it ends the process, loudly.
      thread.off('error', failedToStart);
      if (report.type !== 'ready') {
        reject(new Error(report.type === 'failed' ? `PGlite did not start: ${report.message}` : 'PGlite stopped before serving'));
        return;
      }
      let stopping: Promise<void> | undefined;
      resolve({
        url: report.url,
        stop(options = {}) {
          // The thread closes its server, then PGlite (so everything written is on disk), then exits.
          stopping ??= (async () => {
            const outcome = new Promise<PgliteThreadReport | undefined>((answer) => {
              thread.once('message', answer);
              void exited.then(() => answer(undefined));
            });
            thread.postMessage({ type: 'stop', saveTo: options.saveTo } satisfies PgliteThreadStop);
            const report = await outcome;
            await exited;
            if (report?.type === 'failed') throw new Error(`PGlite did not stop cleanly: ${report.message}`);
          })();
          return stopping;
        },
      });
    });
  });
}

/**
 * The thread runs the module as it is when compiled. Under tsx (npm start, tests) a worker thread does not inherit
 * the loader, and registering tsx in each new thread cost 0.5-0.7 s of CPU per database started (a test run starts
 * 80-odd): esbuild, on which tsx runs, bundles the thread's own modules (not its packages) into one JavaScript file,
 * named by its content, once per process at most (see bundleThread). Without esbuild the thread registers tsx as before.
 */
function startThread(input: PgliteThreadInput): Worker {
  const entry = new URL(`./pgliteThread${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData: input });
  bundledThread ??= bundleThread(entry);
  if (bundledThread) return new Worker(bundledThread, { workerData: input });
  return new Worker(new URL('./pgliteThread.bootstrap.mjs', import.meta.url), { workerData: { ...input, entry: entry.href } });
}

let bundledThread: URL | null | undefined;

/** The bundle last written, and the size and modification time of each source it was built from. */
interface ThreadBundleManifest {
  bundle: string;
  inputs: Record<string, { size: number; mtimeMs: number }>;
}

/** The manifest's bundle when every source it was built from is unchanged (a few stats, where a build took 0.1-0.2 s). */
function unchangedBundle(manifestFile: string): string | null {
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as ThreadBundleManifest;
    if (!existsSync(manifest.bundle)) return null;
    for (const [file, seen] of Object.entries(manifest.inputs)) {
      const now = statSync(file);
      if (now.size !== seen.size || now.mtimeMs !== seen.mtimeMs) return null;
    }
    return manifest.bundle;
  } catch {
    return null;
  }
}

/** Writes `content` to `file` whole: processes starting at once each write their own copy, and the rename makes one whole file. */
function writeWhole(file: string, content: string | Uint8Array): void {
  const partial = `${file}.${process.pid}.${threadId}.partial`;
  writeFileSync(partial, content);
  renameSync(partial, file);
}

/**
 * `entry` bundled into node_modules/.cache/mnemo (where its packages resolve), or null when esbuild is not there.
 * A manifest beside it names the sources it was built from, so a process whose sources are unchanged reuses it
 * without building: each test file (its own module registry) built it again, about 0.2 s of CPU each.
 */
function bundleThread(entry: URL): URL | null {
  try {
    const dir = fileURLToPath(new URL('../../node_modules/.cache/mnemo', import.meta.url));
    const manifestFile = path.join(dir, 'pglite-thread.manifest.json');
    const reused = unchangedBundle(manifestFile);
    if (reused) return pathToFileURL(reused);
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const built = esbuild.buildSync({
      entryPoints: [fileURLToPath(entry)],
      absWorkingDir: root,
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const code = built.outputFiles[0].contents;
    const file = path.join(dir, `pglite-thread-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
    mkdirSync(dir, { recursive: true });
    if (!existsSync(file)) writeWhole(file, code);
    const inputs: ThreadBundleManifest['inputs'] = {};
    for (const input of Object.keys(built.metafile.inputs)) {
      const source = path.resolve(root, input);
      const { size, mtimeMs } = statSync(source);
      inputs[source] = { size, mtimeMs };
    }
    writeWhole(manifestFile, JSON.stringify({ bundle: file, inputs } satisfies ThreadBundleManifest));
    return pathToFileURL(file);
  } catch {
    return null;
  }
}
