import { restartDelay } from '../core/embedded/workerProcess.js';

describe("npm start's worker restart delay", () => {
  const o = { first: 1_000, max: 30_000, stableAfterMs: 60_000 };

  it('doubles after each quick failure up to the cap', () => {
    const delays: number[] = [];
    let previous: number | undefined;
    for (let i = 0; i < 8; i++) {
      previous = restartDelay(previous, 2_000, o);
      delays.push(previous);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('starts over at the first delay once a worker had run stably', () => {
    expect(restartDelay(16_000, 59_999, o)).toBe(30_000);
    expect(restartDelay(16_000, 60_000, o)).toBe(1_000);
  });
});
