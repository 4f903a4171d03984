import { describe, expect, it } from '@jest/globals';
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
