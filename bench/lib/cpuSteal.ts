// How much of the host's CPU time the hypervisor gave to other guests ("steal",
// /proc/stat) while a benchmark ran, and how much of it no task wanted (idle).
// On this workplace's shared 2-core machines steal reached a fifth of all CPU
// time over a session and differed run to run; a phase with much steal
// measured a slower machine, not slower code.
// Hand-written: one line of /proc/stat, and no maintained package reads it.
import { readFileSync } from 'node:fs';
import { round2 } from './stats.js';

export interface HostTicks {
  steal: number;
  /** idle + iowait. */
  idle: number;
  total: number;
}

/** The aggregate `cpu` line of /proc/stat (clock ticks since boot), or null off Linux. */
export function readHostTicks(): HostTicks | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return null;
    return { steal: fields[7], idle: fields[3] + fields[4], total: fields.reduce((a, n) => a + n, 0) };
  } catch {
    return null;
  }
}

function share(field: 'steal' | 'idle', before: HostTicks | null, after: HostTicks | null): number | null {
  if (!before || !after || after.total <= before.total) return null;
  return round2((after[field] - before[field]) / (after.total - before.total));
}

/** Steal's share of all CPU time between two readings (0 to 1, two decimals); null when either is missing or no time passed. */
export function stealShare(before: HostTicks | null, after: HostTicks | null): number | null {
  return share('steal', before, after);
}

/**
 * The share of all CPU time between two readings that the cores sat idle (0 to 1, two decimals). Under a closed
 * loop that keeps requests in flight, idle cores beside a busy one mean a single thread held the requests up.
 */
export function idleShare(before: HostTicks | null, after: HostTicks | null): number | null {
  return share('idle', before, after);
}
