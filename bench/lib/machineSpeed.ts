// How fast this machine's CPU was when a benchmark ran, so that figures from
// different sessions' machines can be compared: the same code measured 2.2 ms
// of API CPU per context request on one machine and 6.9 ms on the next, both
// "2 cores". A fixed, deterministic workload is timed a few times; its median
// CPU time is the reading (lower is faster). Hand-written: it must stay the
// same workload for good, which a benchmarking library's changing internals
// would not guarantee.
import os from 'node:os';
import { percentile, round2 } from './stats.js';

/** The workload's result, fixed: a changed workload would make older readings incomparable. */
export const WORKLOAD_CHECKSUM = 1_267_248_754;

const REPETITIONS = 15;

export interface MachineSpeed {
  cores: number;
  cpu_model: string;
  /** Median CPU milliseconds of one run of the fixed workload (lower is faster). */
  workload_cpu_ms: number;
  /** Fastest run, the machine's best case. */
  workload_cpu_ms_min: number;
  /**
   * Median wall time over the process's CPU time of a run: well above 1, it waited for a CPU (other load, a busy
   * host); somewhat below 1, its garbage collector's threads ran beside it.
   */
  wall_over_cpu: number;
}

/**
 * The fixed workload: sorting, hashing and JSON round trips of generated
 * data, the kind of work the API and worker do. Returns a checksum, so that
 * nothing can be optimized away and a changed workload is noticed.
 */
export function runWorkload(): number {
  let seed = 12_345;
  const next = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed;
  };
  const numbers = Array.from({ length: 60_000 }, next).sort((a, b) => a - b);
  let hash = 2_166_136_261;
  const fnv = (text: string) => {
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16_777_619) >>> 0;
  };
  for (let round = 0; round < 40; round++) {
    const rows = Array.from({ length: 200 }, (_, i) => ({ id: numbers[(round * 200 + i) % numbers.length], text: `row ${i} of round ${round}`, score: i / 7 }));
    const parsed = JSON.parse(JSON.stringify(rows)) as typeof rows;
    fnv(parsed.map((r) => `${r.id}:${r.text}:${r.score.toFixed(3)}`).join('|'));
  }
  return (hash ^ numbers[numbers.length >> 1]) >>> 0;
}

/** Times the workload REPETITIONS times (after a warm-up run that checks it) on this thread: about a second. */
export function measureMachineSpeed(): MachineSpeed {
  if (runWorkload() !== WORKLOAD_CHECKSUM) throw new Error('the machine-speed workload changed: its readings would not compare with earlier ones');
  const cpu: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < REPETITIONS; i++) {
    const wallStart = performance.now();
    const cpuStart = process.cpuUsage();
    runWorkload();
    const used = process.cpuUsage(cpuStart);
    const cpuMs = (used.user + used.system) / 1000;
    cpu.push(cpuMs);
    ratios.push((performance.now() - wallStart) / Math.max(cpuMs, 0.001));
  }
  return {
    cores: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    workload_cpu_ms: round2(percentile(cpu, 50)),
    workload_cpu_ms_min: round2(Math.min(...cpu)),
    wall_over_cpu: round2(percentile(ratios, 50)),
  };
}
