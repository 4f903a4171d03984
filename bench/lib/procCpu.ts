// CPU time of processes read from /proc (Linux), for per-operation CPU figures
// that wall time cannot give on a shared 2-core machine. Hand-written: /proc's
// stat line is three fields of arithmetic and no maintained package reads
// children's time (cutime/cstime) as well, which PostgreSQL's short-lived
// backends need.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { readProcStat } from '../../core/embedded/procStat.js';

interface StatLine {
  ppid: number;
  /** utime + stime, in clock ticks. */
  own: number;
  /** cutime + cstime: time of children that exited and were waited for. */
  children: number;
}

let ticksPerSecond: number | undefined;

function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

function readStat(pid: number): StatLine | null {
  const stat = readProcStat(pid);
  return stat && { ppid: stat.ppid, own: stat.utime + stat.stime, children: stat.cutime + stat.cstime };
}

function livePids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/**
 * CPU milliseconds a process tree has used so far: the root's own and waited-for children's time plus the live
 * children's own time. The difference of two readings is what the tree used in between, short-lived children
 * (PostgreSQL backends, one per connection) included.
 */
export function treeCpuMs(rootPid: number): number | null {
  const root = readStat(rootPid);
  if (!root) return null;
  let ticks = root.own + root.children;
  for (const pid of livePids()) {
    if (pid === rootPid) continue;
    const stat = readStat(pid);
    if (stat?.ppid === rootPid) ticks += stat.own;
  }
  return (ticks / clockTicksPerSecond()) * 1000;
}

/** The postmaster's pid of the server behind `db`, when it runs on this machine (its data directory is readable here). */
export async function postmasterPid(db: pg.Pool | pg.Client): Promise<number | null> {
  try {
    const { rows } = await db.query<{ setting: string }>(`SELECT setting FROM pg_settings WHERE name = 'data_directory'`);
    const pid = Number(readFileSync(path.join(rows[0].setting, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && readStat(pid) ? pid : null;
  } catch {
    return null; // a remote server, or no rights to its data directory
  }
}

export type CpuTargets = Record<string, number[]>;

/** A reading of every named group of process trees; `diff` of two readings gives CPU ms per group over the interval. */
export function readCpu(targets: CpuTargets): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [name, pids] of Object.entries(targets)) {
    const values = pids.map(treeCpuMs);
    out[name] = values.length === 0 || values.some((v) => v === null) ? null : values.reduce<number>((a, v) => a + (v ?? 0), 0);
  }
  return out;
}

export function cpuBetween(before: Record<string, number | null>, after: Record<string, number | null>): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const name of Object.keys(before)) {
    const a = before[name];
    const b = after[name];
    out[name] = a === null || b === null || b === undefined ? null : b - a;
  }
  return out;
}

/** This process's CPU milliseconds so far (user + system). */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
