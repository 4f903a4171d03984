import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ensureAdminKey } from '../core/auth/bootstrap.js';
import { loadConfig } from '../core/config/config.js';
import { preferredOrFreePort } from '../core/embedded/ports.js';
import { lockDataDir } from '../core/embedded/processLock.js';
import { findSdkCachedCli, findTemporalCli } from '../core/embedded/temporalCli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-helpers-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('admin key bootstrap (DATA_DIR/api-key)', () => {
  it('generates a key once, stores it owner-only, and reuses it', () => {
    const config = loadConfig({ DATA_DIR: path.join(dir, 'data') });
    const first = ensureAdminKey(config);
    expect(first.source).toBe('generated');
    expect(first.key).toMatch(/^mnemo_[\w-]{32}$/);
    const file = path.join(dir, 'data', 'api-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.key);
    const again = ensureAdminKey(config);
    expect(again).toEqual({ key: first.key, source: 'file', file });
  });

  it('prefers MNEMO_API_KEY and writes nothing then', () => {
    const key = ensureAdminKey(loadConfig({ DATA_DIR: dir, MNEMO_API_KEY: 'k'.repeat(20) }));
    expect(key).toEqual({ key: 'k'.repeat(20), source: 'env' });
    expect(() => statSync(path.join(dir, 'api-key'))).toThrow();
  });

  it('refuses a truncated key file instead of silently replacing it', () => {
    writeFileSync(path.join(dir, 'api-key'), 'short\n');
    expect(() => ensureAdminKey(loadConfig({ DATA_DIR: dir }))).toThrow(/shorter than 16 characters: delete the file/);
  });
});

describe('data folder lock', () => {
  it('refuses a folder held by a live process and takes over a stale lock', () => {
    const file = path.join(dir, 'mnemo.pid');
    // A live process that is not us: the parent of this jest worker.
    writeFileSync(file, `${process.ppid}\n`);
    expect(() => lockDataDir(file)).toThrow(`Another Mnemo (pid ${process.ppid}) is using this data folder`);
    // A pid that no longer exists: a finished child's.
    const gone = spawnSync('true').pid;
    writeFileSync(file, `${gone}\n`);
    const lock = lockDataDir(file);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    expect(() => statSync(file)).toThrow();
  });
});

describe('ports', () => {
  it('takes the preferred port when free, another one when taken', async () => {
    const server: Server = await new Promise((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => resolve(s));
    });
    const taken = (server.address() as { port: number }).port;
    try {
      const other = await preferredOrFreePort(taken);
      expect(other).not.toBe(taken);
      expect(other).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await preferredOrFreePort(taken)).toBe(taken);
  });
});

describe('temporal CLI lookup', () => {
  it("finds the Temporal SDK's cached download, newest first", () => {
    const older = path.join(dir, 'temporal-sdk-typescript-1.23.0');
    const newer = path.join(dir, 'temporal-sdk-typescript-1.24.0');
    for (const f of [older, newer, path.join(dir, 'temporal-notes.txt')]) writeFileSync(f, '#!/bin/sh\n');
    chmodSync(older, 0o755);
    chmodSync(newer, 0o755);
    utimesSync(older, new Date(), new Date());
    utimesSync(newer, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    expect(findSdkCachedCli(dir)).toBe(newer);
    expect(findSdkCachedCli(path.join(dir, 'missing'))).toBeUndefined();
  });

  it('uses TEMPORAL_CLI_PATH when given, and says so when it does not exist', () => {
    const cli = path.join(dir, 'temporal');
    writeFileSync(cli, '#!/bin/sh\n', { mode: 0o755 });
    expect(findTemporalCli(cli)).toBe(cli);
    expect(() => findTemporalCli(path.join(dir, 'nope'))).toThrow(`TEMPORAL_CLI_PATH=${path.join(dir, 'nope')} does not exist`);
  });

  it('finds the installed CLI on this machine (PATH or Python scripts)', () => {
    expect(findTemporalCli(undefined)).toMatch(/temporal/);
  });
});
