import { describe, expect, it } from '@jest/globals';
import { readHostTicks, stealShare } from '../bench/lib/cpuSteal.js';
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
    expect(stealShare({ steal: 900, total: 1000 }, { steal: 930, total: 1200 })).toBe(0.15);
    expect(stealShare({ steal: 5, total: 100 }, { steal: 5, total: 100 })).toBeNull();
    expect(stealShare(null, { steal: 5, total: 100 })).toBeNull();
    expect(stealShare({ steal: 5, total: 100 }, null)).toBeNull();
  });
});
