#!/usr/bin/env node
// `npm test`: the whole suite in two passes. Most test files wait on Temporal,
// PostgreSQL and timers more than they compute, so they run two at a time
// (one Jest worker per core; three against a PostgreSQL server, see `workers`
// below); the files below measure time or load the machine
// on purpose, and run afterwards one at a time, on a machine nothing else
// loads. `npm test -- <jest arguments>` runs just what the arguments select,
// one file at a time, as before.
//
// TEST_DATABASE_DEPENDENT_ONLY=true runs only the files whose outcome can
// depend on which PostgreSQL the run uses: those that import
// test/support/db.ts or test/support/env.ts, as Jest's own resolver finds
// them (--findRelatedTests). CI sets it for its pass against a server; its
// embedded pass runs every file.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');

/**
 * Test files that must have the machine to themselves: they bound a latency,
 * a stall or a wait in wall time (overload's p99, PGlite's thread beside the
 * event loop, a stream's end, a second signal) or drive the server at its
 * capacity (the 16-client concurrency run). The chaos run is not among them:
 * its load is light (8 writes/s on services of its own) and its 100 s are
 * mostly its fault schedule, which the other files' work can overlap.
 */
const ALONE = [
  'test/overload.test.ts',
  'test/embedded-pglite-thread.test.ts',
  'test/embedded-concurrency.test.ts',
  'test/shutdown-signal.test.ts',
  'test/threads.test.ts',
];

/** Every test file that imports the test database or the database choice, directly or through test/support. */
const DATABASE_MODULES = ['test/support/db.ts', 'test/support/env.ts'];

/**
 * Jest runs the ESM test files through Node's VM modules. Each file loads its module graph anew, and a larger young
 * generation collects that garbage less often: 3-6% less CPU per file in a local A/B of seven stack files.
 */
const JEST_ENV = {
  ...process.env,
  NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules', '--max-semi-space-size=64'].filter(Boolean).join(' '),
};

function jest(args) {
  const result = spawnSync(process.execPath, [JEST, ...args], {
    cwd: ROOT,
    stdio: 'inherit',
    env: JEST_ENV,
  });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/**
 * MNEMO_TEST_ALONE_AFTER names a file that something else running on the machine writes when it is done (CI: the
 * newcomer's npm install, begun before this run): the second pass waits for it, so its files have the machine alone.
 */
async function machineToItself() {
  const marker = process.env.MNEMO_TEST_ALONE_AFTER;
  if (!marker || existsSync(marker)) return;
  console.log(`[npm test] waiting for ${marker} before the files that need the machine alone`);
  while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 1_000));
}

const args = process.argv.slice(2);
if (args.length) process.exit(jest(['--maxWorkers=1', ...args]));

/** The test files Jest would run, as paths relative to ROOT (with `related`: only those importing one of them). */
function listTests(related = []) {
  const result = spawnSync(process.execPath, [JEST, '--listTests', '--json', ...(related.length ? ['--findRelatedTests', ...related] : [])], {
    cwd: ROOT,
    encoding: 'utf8',
    env: JEST_ENV,
  });
  if (result.status !== 0) throw new Error(`jest --listTests failed: ${result.stderr}`);
  return JSON.parse(result.stdout).map((file) => path.relative(ROOT, file)).sort();
}

const databaseDependentOnly = process.env.TEST_DATABASE_DEPENDENT_ONLY === 'true';
const files = databaseDependentOnly ? listTests(DATABASE_MODULES) : listTests();
if (databaseDependentOnly) {
  console.log(`[npm test] TEST_DATABASE_DEPENDENT_ONLY: the ${files.length} files that use the test database`);
}
const together = files.filter((file) => !ALONE.includes(file));
const alone = ALONE.filter((file) => files.includes(file));
/**
 * One Jest worker per core, at most two. Against a PostgreSQL server one more: the database then computes in its own
 * processes rather than in the Jest workers (embedded PGlite), so a third file keeps the cores busy while two wait on
 * it. The server pass as CI runs it, on its own, two cores: 272-274 s for its first part with three workers against
 * 333 s with two; on the embedded default three were no faster (583 s against 565-584 s).
 */
const workers = Math.max(1, Math.min(2, availableParallelism())) + (process.env.TEST_DATABASE_ADMIN_URL ? 1 : 0);
console.log(`[npm test] pass 1 of 2: ${together.length} files, ${workers} at a time`);
// Both passes test the same sources: the second reuses the workflow bundle and the migrated embedded database the
// first one's global setup made (test/support/testServices.ts).
JEST_ENV.MNEMO_TEST_SHARED_DIR = mkdtempSync(path.join(tmpdir(), 'mnemo-test-shared-'));
let first, second;
try {
  first = jest([`--maxWorkers=${workers}`, '--runTestsByPath', ...together]);
  await machineToItself();
  console.log(`[npm test] pass 2 of 2: ${alone.length} files that need the machine alone, one at a time`);
  second = alone.length ? jest(['--maxWorkers=1', '--runTestsByPath', ...alone]) : 0;
} finally {
  rmSync(JEST_ENV.MNEMO_TEST_SHARED_DIR, { recursive: true, force: true });
}
process.exit(first || second);
