import { jest } from '@jest/globals';
import { pino } from 'pino';
import { ExtractionDispatcher } from '../core/ingest/dispatcher.js';

const logger = pino({ level: 'silent' });
const flush = () => jest.advanceTimersByTimeAsync(0);

describe('ExtractionDispatcher (paced, bounded hand-off to Temporal)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('starts a burst up to its bucket at once, then at the sustained rate, in order', async () => {
    const started: string[] = [];
    const dispatcher = new ExtractionDispatcher(
      async (id) => {
        started.push(id);
        return true;
      },
      logger,
      { maxInFlight: 4, maxQueued: 100, startsPerSecond: 10 },
      () => Date.now(),
    );
    const ids = Array.from({ length: 10 }, (_, i) => `e${i}`);
    ids.forEach((id) => dispatcher.enqueue(id));
    await flush();
    expect(started).toEqual(ids.slice(0, 4));
    await jest.advanceTimersByTimeAsync(100);
    expect(started).toEqual(ids.slice(0, 5));
    await jest.advanceTimersByTimeAsync(500);
    expect(started).toEqual(ids);
    expect(dispatcher.pending).toBe(0);
  });

  it('never runs more than maxInFlight starts and sheds what does not fit the queue (left to reconcile)', async () => {
    const releases: Array<() => void> = [];
    let running = 0;
    let peak = 0;
    const dispatcher = new ExtractionDispatcher(
      (_id) =>
        new Promise<boolean>((resolve) => {
          running++;
          peak = Math.max(peak, running);
          releases.push(() => {
            running--;
            resolve(true);
          });
        }),
      logger,
      { maxInFlight: 2, maxQueued: 3, startsPerSecond: 1_000 },
      () => Date.now(),
    );
    for (let i = 0; i < 7; i++) dispatcher.enqueue(`e${i}`);
    await flush();
    expect(running).toBe(2);
    expect(dispatcher.pending).toBe(5);
    expect(dispatcher.shedCount).toBe(2);
    while (releases.length > 0) {
      releases.shift()!();
      await jest.advanceTimersByTimeAsync(10);
    }
    expect(peak).toBe(2);
    expect(dispatcher.pending).toBe(0);
  });

  it('keeps going after a start fails', async () => {
    const started: string[] = [];
    const dispatcher = new ExtractionDispatcher(
      async (id) => {
        started.push(id);
        if (id === 'e1') throw new Error('temporal unreachable');
        return true;
      },
      logger,
      { maxInFlight: 1, maxQueued: 10, startsPerSecond: 1_000 },
      () => Date.now(),
    );
    ['e0', 'e1', 'e2'].forEach((id) => dispatcher.enqueue(id));
    await jest.advanceTimersByTimeAsync(50);
    expect(started).toEqual(['e0', 'e1', 'e2']);
  });
});
