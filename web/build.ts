import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const WEB_DIR = path.dirname(fileURLToPath(import.meta.url));
/** The built page, served by the API at /kg (git-ignored). */
export const WEB_DIST = path.join(WEB_DIR, 'dist');

/** Bundles the page (TypeScript + cytoscape) into web/dist with its HTML and CSS: no CDN, the page works offline. */
export async function buildWeb(outDir = WEB_DIST): Promise<void> {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [path.join(WEB_DIR, 'src/main.ts')],
    outfile: path.join(outDir, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    sourcemap: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  await Promise.all(['index.html', 'styles.css'].map((file) => copyFile(path.join(WEB_DIR, file), path.join(outDir, file))));
}

/** Builds the page unless `npm install` already did (tests call it: they need no build step of their own). */
export async function ensureWebBuilt(): Promise<void> {
  if (!existsSync(path.join(WEB_DIST, 'index.html')) || !existsSync(path.join(WEB_DIST, 'app.js'))) await buildWeb();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildWeb();
  console.log(`built the /kg page into ${path.relative(process.cwd(), WEB_DIST)}`);
}
