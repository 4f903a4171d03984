import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { ROOT } from './paths.js';

/**
 * The variable naming a folder that holds the repository's TypeScript compiled to JavaScript, file by file, beside
 * links to everything else (node_modules, migrations, package.json …). Processes the tests spawn run from it with
 * plain `node`: `node --import tsx` cost a spawned API 3.6 s of CPU to answer /healthz against 2.1 s compiled
 * (tsx's loader thread resolves and loads every module the process imports), and a run spawns dozens. The commands
 * a user types (`npm start`, `npm run api` …) are tested as they are, through tsx (entrypoints, embedded-start).
 */
export const COMPILED_SOURCES_ENV = 'MNEMO_COMPILED_SOURCES';

const LINKED = new Set(['node_modules']);
const LEFT_OUT = new Set(['.git']);
const isTypeScript = (name: string) => name.endsWith('.ts') && !name.endsWith('.d.ts');

/** Mirrors `dir` under `out`: TypeScript files are collected to compile, every other file (and node_modules) linked. */
function mirror(dir: string, out: string, sources: string[]): void {
  mkdirSync(out, { recursive: true });
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (LEFT_OUT.has(entry.name)) continue;
    const from = path.join(dir, entry.name);
    if (entry.isDirectory() && !LINKED.has(entry.name)) mirror(from, path.join(out, entry.name), sources);
    else if (isTypeScript(entry.name)) sources.push(from);
    else symlinkSync(from, path.join(out, entry.name));
  }
}

/**
 * Compiles the repository's sources into `<dir>/compiled-sources` once (esbuild, the compiler tsx runs too; about
 * half a second) and returns that folder. A folder already there is reused: `npm test`'s two Jest passes share it.
 */
export function compileSources(dir: string): string {
  const out = path.join(dir, 'compiled-sources');
  if (existsSync(out)) return out;
  const partial = `${out}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const sources: string[] = [];
  mirror(ROOT, partial, sources);
  buildSync({ entryPoints: sources, outdir: partial, outbase: ROOT, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' });
  renameSync(partial, out);
  return out;
}

/** How to run a TypeScript entry point of the repository: compiled when the run has compiled its sources, else through tsx. */
export function entryArgs(entry: string): string[] {
  const compiled = process.env[COMPILED_SOURCES_ENV];
  return compiled ? [path.join(compiled, entry.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', path.join(ROOT, entry)];
}
