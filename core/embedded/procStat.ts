import { readFileSync } from 'node:fs';

/** The fields of a `/proc/<pid>[/task/<tid>]/stat` line that Mnemo reads (Linux, proc(5)). */
export interface ProcStat {
  state: string;
  ppid: number;
  session: number;
  /** User and system CPU time, in clock ticks. */
  utime: number;
  stime: number;
  /** Waited-for children's user and system CPU time, in clock ticks. */
  cutime: number;
  cstime: number;
  nice: number;
}

/**
 * Reads a process's (or, with `tid`, one thread's) stat line; null when it has
 * ended or there is no /proc. The command name (field 2) is in parentheses
 * and may hold spaces and parentheses: the fields after it are split from its last `)`.
 */
export function readProcStat(pid: number, tid?: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Index 0 is field 3 (state).
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    state: f[0],
    ppid: Number(f[1]),
    session: Number(f[3]),
    utime: Number(f[11]),
    stime: Number(f[12]),
    cutime: Number(f[13]),
    cstime: Number(f[14]),
    nice: Number(f[16]),
  };
}
