import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readProcStat } from '../core/embedded/procStat.js';

describe('readProcStat', () => {
  it("reads this process's parent, state, nice and CPU time, and a thread's", () => {
    const own = readProcStat(process.pid);
    expect(own).toMatchObject({ ppid: process.ppid, state: expect.stringMatching(/^[RS]$/) });
    expect(own!.utime + own!.stime).toBeGreaterThan(0);
    expect(readProcStat(process.pid, process.pid)?.ppid).toBe(process.ppid);
  });

  it('splits after the last ")" of a command name holding spaces and parentheses, and is null once the process ended', async () => {
    // The command name in stat is the executable's file name: a copy of sleep named "a) b (c".
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-proc-stat-'));
    try {
      const odd = path.join(dir, 'a) b (c');
      copyFileSync('/bin/sleep', odd);
      const child = spawn(odd, ['5'], { detached: true, stdio: 'ignore' });
      await once(child, 'spawn');
      expect(readProcStat(child.pid!)).toMatchObject({ ppid: process.pid, session: child.pid, nice: 0 });
      child.kill('SIGKILL');
      await once(child, 'exit');
      expect(readProcStat(child.pid!)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
