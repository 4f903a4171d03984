import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { StartupError } from './errors.js';

/** Whether a process with this pid exists (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * One Mnemo per data folder: PGlite and the Temporal SQLite file must not be
 * opened by two processes. A lock left by a process that died is taken over.
 */
export function lockDataDir(file: string): { release(): void } {
  const holder = readPid(file);
  if (holder !== null && holder !== process.pid && isAlive(holder)) {
    throw new StartupError(`Another Mnemo (pid ${holder}) is using this data folder (${file}); stop it or set DATA_DIR to another folder`);
  }
  writeFileSync(file, `${process.pid}\n`, { mode: 0o600 });
  return {
    release() {
      if (readPid(file) === process.pid) rmSync(file, { force: true });
    },
  };
}
