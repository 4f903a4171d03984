import { jest } from '@jest/globals';
import { pino } from 'pino';
import { CLAIM_PROBE_INTERVAL_MS, ExtractionDispatcher, UNCLAIMED_MAX_AGE_MS } from '../core/ingest/dispatcher.js';

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

describe('ExtractionDispatcher start window (starts follow the workers claiming them)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A dispatcher whose probe reports `pending` as the episodes no worker has claimed. */
  function windowed(maxUnclaimed: number, pending: Set<string>, probe?: (ids: string[]) => Promise<string[]>) {
    const started: string[] = [];
    const asked: string[][] = [];
    const dispatcher = new ExtractionDispatcher(
      async (id) => {
        started.push(id);
        pending.add(id);
        return true;
      },
      logger,
      { maxInFlight: 4, maxQueued: 100, startsPerSecond: 1_000, maxUnclaimed },
      () => Date.now(),
      probe ??
        (async (ids) => {
          asked.push(ids);
          return ids.filter((id) => pending.has(id));
        }),
    );
    return { dispatcher, started, asked };
  }

  it('starts no more than the window while workers claim nothing, and one more for each episode they claim', async () => {
    const pending = new Set<string>();
    const { dispatcher, started, asked } = windowed(3, pending);
    const ids = Array.from({ length: 8 }, (_, i) => `e${i}`);
    ids.forEach((id) => dispatcher.enqueue(id));
    await jest.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual(ids.slice(0, 3));
    expect(dispatcher.unclaimedCount).toBe(3);
    expect(dispatcher.pending).toBe(5);
    // Several probes in that second, not one per timer tick: at most one every CLAIM_PROBE_INTERVAL_MS.
    expect(asked.length).toBeGreaterThan(1);
    expect(asked.length).toBeLessThanOrEqual(1_000 / CLAIM_PROBE_INTERVAL_MS + 1);
    // A worker claims two of them: two more start, in order.
    pending.delete('e0');
    pending.delete('e2');
    await jest.advanceTimersByTimeAsync(CLAIM_PROBE_INTERVAL_MS + 10);
    expect(started).toEqual(ids.slice(0, 5));
    expect(dispatcher.unclaimedCount).toBe(3);
    // All claimed: the rest start.
    pending.clear();
    await jest.advanceTimersByTimeAsync(3 * CLAIM_PROBE_INTERVAL_MS);
    expect(started).toEqual(ids);
    expect(dispatcher.pending).toBe(0);
  });

  it('lets an episode that stays unclaimed too long leave the window (reconcile starts it again)', async () => {
    const pending = new Set<string>();
    const { dispatcher, started } = windowed(1, pending);
    dispatcher.enqueue('stuck');
    dispatcher.enqueue('next');
    await jest.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual(['stuck']);
    await jest.advanceTimersByTimeAsync(UNCLAIMED_MAX_AGE_MS + CLAIM_PROBE_INTERVAL_MS);
    expect(started).toEqual(['stuck', 'next']);
  });

  it('opens the window when the probe fails, so starts never wait on an unreadable database', async () => {
    const { dispatcher, started } = windowed(1, new Set(), async () => {
      throw new Error('database down');
    });
    ['e0', 'e1', 'e2'].forEach((id) => dispatcher.enqueue(id));
    await jest.advanceTimersByTimeAsync(2 * CLAIM_PROBE_INTERVAL_MS + 10);
    expect(started).toEqual(['e0', 'e1', 'e2']);
  });

  it('with a window of 0 starts at the rate alone, without asking', async () => {
    const pending = new Set<string>();
    const { dispatcher, started, asked } = windowed(0, pending);
    const ids = Array.from({ length: 6 }, (_, i) => `e${i}`);
    ids.forEach((id) => dispatcher.enqueue(id));
    await jest.advanceTimersByTimeAsync(100);
    expect(started).toEqual(ids);
    expect(asked).toEqual([]);
  });

  it('after stop starts nothing more: the queue is dropped (left pending for reconcile), later enqueues are ignored', async () => {
    const pending = new Set<string>();
    const { dispatcher, started } = windowed(2, pending);
    ['e0', 'e1', 'e2', 'e3'].forEach((id) => dispatcher.enqueue(id));
    await jest.advanceTimersByTimeAsync(100);
    expect(started).toEqual(['e0', 'e1']);
    dispatcher.stop();
    expect(dispatcher.pending).toBe(0);
    // Claimed meanwhile: a live dispatcher would start e2 and e3 now.
    pending.clear();
    dispatcher.enqueue('e4');
    await jest.advanceTimersByTimeAsync(5 * CLAIM_PROBE_INTERVAL_MS);
    expect(started).toEqual(['e0', 'e1']);
    expect(dispatcher.pending).toBe(0);
  });
});
