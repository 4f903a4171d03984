// How a process's main thread spent a benchmark phase: running on a CPU, or
// runnable but waiting for one (/proc/<pid>/task/<pid>/schedstat, nanoseconds).
// The API serves every request's JavaScript on its main thread; a thread that
// runs or waits nearly all the time is the queue every request stands in.
// Hand-written: two numbers from one /proc file, which no maintained package reads.
import { readFileSync } from 'node:fs';
import { round2 } from './stats.js';

export interface ThreadSchedReading {
  runNs: number;
  waitNs: number;
  atNs: bigint;
}

/** The main thread's cumulative run and run-queue wait times, or null where /proc has no schedstat (off Linux, or the process is gone). */
export function readMainThreadSched(pid: number): ThreadSchedReading | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    if (!Number.isFinite(run) || !Number.isFinite(wait)) return null;
    return { runNs: run, waitNs: wait, atNs: process.hrtime.bigint() };
  } catch {
    return null;
  }
}

export interface ThreadSchedShares {
  /** Share of the wall time between the readings the thread ran on a CPU (0 to 1, two decimals). */
  run_share: number;
  /** Share it was runnable but waited for a CPU. */
  wait_share: number;
}

/** Run and wait shares of the wall time between two readings; null when either is missing. */
export function schedShares(before: ThreadSchedReading | null, after: ThreadSchedReading | null): ThreadSchedShares | null {
  if (!before || !after) return null;
  const wall = Number(after.atNs - before.atNs);
  if (wall <= 0) return null;
  return { run_share: round2((after.runNs - before.runNs) / wall), wait_share: round2((after.waitNs - before.waitNs) / wall) };
}
