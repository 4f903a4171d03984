import { writeFileSync } from 'node:fs';
import { readProcStat } from './procStat.js';

/**
 * Where the kernel groups processes by session (autogroup: on by default in
 * most desktop and many server kernels), a thread's nice value only ranks it
 * within its session's group, and the groups share the CPU equally. A process
 * started detached (`setsid`) leads a group of its own: renicing its threads
 * does not lower it against the API, but renicing its group does.
 * `/proc/<pid>/autogroup` is that group's nice value (Linux; elsewhere this
 * does nothing and says so).
 */
export function setSessionGroupNice(pid: number, nice: number): boolean {
  if (!leadsOwnSession(pid)) return false;
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    return true;
  } catch {
    // No autogroup in this kernel, or not allowed (raising a priority needs privileges).
    return false;
  }
}

/**
 * Whether `pid` is its session's leader (its session id is its pid). Only
 * then is its group its own: in a terminal's session the group is the
 * terminal's, and renicing it would lower the neighbours too.
 */
function leadsOwnSession(pid: number): boolean {
  return readProcStat(pid)?.session === pid;
}
