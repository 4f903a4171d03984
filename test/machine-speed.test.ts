import { describe, expect, it } from '@jest/globals';
import { idleShare, readHostTicks, stealShare } from '../bench/lib/cpuSteal.js';
import { readMainThreadSched, schedShares } from '../bench/lib/threadSched.js';
import { measureMachineSpeed, runWorkload, WORKLOAD_CHECKSUM } from '../bench/lib/machineSpeed.js';

describe("the benchmarks' machine-speed reading", () => {
  it('times a workload that is the same on every run and every machine', () => {
    expect(runWorkload()).toBe(WORKLOAD_CHECKSUM);
    expect(runWorkload()).toBe(WORKLOAD_CHECKSUM);
  });

  it('reports the median and fastest CPU time of the workload, and how long it waited for a CPU', () => {
    const speed = measureMachineSpeed();
    expect(speed.cores).toBeGreaterThan(0);
    expect(speed.cpu_model.length).toBeGreaterThan(0);
    expect(speed.workload_cpu_ms_min).toBeGreaterThan(0);
    expect(speed.workload_cpu_ms).toBeGreaterThanOrEqual(speed.workload_cpu_ms_min);
    // The process's CPU time (its GC threads' too) can outrun the wall clock by at most one core's worth per core.
    expect(speed.wall_over_cpu).toBeGreaterThanOrEqual(Math.floor((100 / speed.cores) * 0.95) / 100);
  });
});

describe("the benchmarks' CPU steal reading", () => {
  it("reads the host's ticks from /proc/stat, steal within the total, both growing", async () => {
    const before = readHostTicks();
    expect(before).not.toBeNull();
    expect(before!.steal).toBeGreaterThanOrEqual(0);
    expect(before!.steal).toBeLessThan(before!.total);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = readHostTicks()!;
    expect(after.total).toBeGreaterThan(before!.total);
    expect(after.steal).toBeGreaterThanOrEqual(before!.steal);
    const share = stealShare(before, after);
    expect(share).toBeGreaterThanOrEqual(0);
    expect(share).toBeLessThanOrEqual(1);
  });

  it('gives the share of the interval, not of the time since boot, and nothing where it cannot tell', () => {
    expect(stealShare({ steal: 900, idle: 0, total: 1000 }, { steal: 930, idle: 0, total: 1200 })).toBe(0.15);
    expect(stealShare({ steal: 5, idle: 0, total: 100 }, { steal: 5, idle: 0, total: 100 })).toBeNull();
    expect(stealShare(null, { steal: 5, idle: 0, total: 100 })).toBeNull();
    expect(stealShare({ steal: 5, idle: 0, total: 100 }, null)).toBeNull();
  });

  it('gives the idle share of the interval the same way, idle and iowait counted together', () => {
    expect(idleShare({ steal: 0, idle: 400, total: 1000 }, { steal: 0, idle: 450, total: 1200 })).toBe(0.25);
    expect(idleShare({ steal: 0, idle: 5, total: 100 }, { steal: 0, idle: 5, total: 100 })).toBeNull();
    const before = readHostTicks()!;
    expect(before.idle).toBeLessThanOrEqual(before.total);
  });
});

describe("the benchmarks' reading of the API's main thread", () => {
  const busyFor = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };

  it('finds a spinning thread running or waiting for a CPU all the time, a sleeping one neither', async () => {
    const spinStart = readMainThreadSched(process.pid);
    expect(spinStart).not.toBeNull();
    busyFor(300);
    const spinning = schedShares(spinStart, readMainThreadSched(process.pid))!;
    // A thread that never blocks is always on a CPU or in a run queue, however busy the machine is.
    expect(spinning.run_share + spinning.wait_share).toBeGreaterThan(0.9);
    expect(spinning.run_share).toBeGreaterThan(0);

    const sleepStart = readMainThreadSched(process.pid);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sleeping = schedShares(sleepStart, readMainThreadSched(process.pid))!;
    expect(sleeping.run_share + sleeping.wait_share).toBeLessThan(0.5);
  });

  it('gives shares of the wall time between readings, and nothing where it cannot tell', () => {
    const before = { runNs: 1_000_000, waitNs: 500_000, atNs: 10_000_000n };
    expect(schedShares(before, { runNs: 7_000_000, waitNs: 2_500_000, atNs: 20_000_000n })).toEqual({ run_share: 0.6, wait_share: 0.2 });
    expect(schedShares(before, { ...before })).toBeNull();
    expect(schedShares(null, before)).toBeNull();
    expect(readMainThreadSched(2 ** 22 + 12_345)).toBeNull();
  });
});
