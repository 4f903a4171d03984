import { readdirSync } from 'node:fs';
import os from 'node:os';
import { setSessionGroupNice } from '../core/embedded/cpuPriority.js';
import type { Logger } from '../core/logger.js';

/**
 * Lowers this process's CPU priority to `nice`: extraction is background work,
 * and on a host shared with the API acknowledgements and reads should win the CPU.
 *
 * On Linux a nice value belongs to a thread, and `os.setPriority` sets only the
 * calling one: Node's own threads started before it (V8's garbage collection
 * and compiler threads, libuv's pool) stayed at 0. So every thread listed in
 * /proc/self/task is set; threads started later inherit from their creator.
 *
 * A process leading a session of its own (npm start's worker, started
 * detached) also sets its session group's nice (see cpuPriority.ts): at nice
 * 10 in a group of its own it still took 50-90 % of a core beside an API
 * whose reads waited runnable (bench:agents).
 */
export function lowerPriority(nice: number, logger: Logger): void {
  let threads: number[] = [];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // No /proc (macOS): the process-wide call below is all there is, and there it covers every thread.
  }
  try {
    os.setPriority(nice);
  } catch (err) {
    // Raising priority (a negative nice) needs privileges; running at the default is still correct.
    logger.warn({ err, nice }, 'could not set the worker CPU priority');
    return;
  }
  for (const tid of threads) {
    if (tid === process.pid) continue;
    try {
      os.setPriority(tid, nice);
    } catch {
      // The thread ended since it was listed.
    }
  }
  setSessionGroupNice(process.pid, nice);
}
