import { SessionLock } from '../core/embedded/sessionLock.js';

/** A connection as the lock sees it, with the order it was granted the session in. */
const holder = (name: string, readsFirst: boolean) => ({ name, readsFirst });
type Holder = ReturnType<typeof holder>;

function lockWithClock(starvationMs: number) {
  let now = 0;
  const lock = new SessionLock<Holder>(starvationMs, () => now);
  const granted: string[] = [];
  const wait = (h: Holder) => lock.acquire(h).then(() => granted.push(h.name));
  return { lock, granted, wait, advance: (ms: number) => (now += ms) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the lock on the single PGlite session', () => {
  it('passes the session to the oldest waiting read before writes that queued earlier', async () => {
    const { lock, granted, wait } = lockWithClock(200);
    const extraction = holder('extraction', false);
    await lock.acquire(extraction);
    const writeA = holder('write A', false);
    const writeB = holder('write B', false);
    const read1 = holder('read 1', true);
    const read2 = holder('read 2', true);
    void wait(writeA);
    void wait(read1);
    void wait(writeB);
    void wait(read2);
    lock.release(extraction);
    await settle();
    expect(granted).toEqual(['read 1']);
    lock.release(read1);
    lock.release(read2);
    await settle();
    expect(granted).toEqual(['read 1', 'read 2', 'write A']);
    lock.release(writeA);
    await settle();
    expect(granted).toEqual(['read 1', 'read 2', 'write A', 'write B']);
  });

  it('serves a write that has waited the starvation bound before later reads', async () => {
    const { lock, granted, wait, advance } = lockWithClock(200);
    const first = holder('first', false);
    await lock.acquire(first);
    const write = holder('write', false);
    void wait(write);
    advance(150);
    const read = holder('read', true);
    void wait(read);
    lock.release(first);
    await settle();
    expect(granted).toEqual(['read']); // the write has waited 150 ms: reads still first

    const other = holder('other read', true);
    void wait(other);
    advance(60); // the write has now waited 210 ms
    lock.release(read);
    await settle();
    expect(granted).toEqual(['read', 'write']);
  });

  it('is re-entrant for its owner and keeps everyone else out until released', async () => {
    const { lock, granted, wait } = lockWithClock(200);
    const tx = holder('transaction', false);
    await lock.acquire(tx);
    await lock.acquire(tx); // its next statement, inside the transaction
    void wait(holder('read', true));
    await settle();
    expect(granted).toEqual([]);
    expect(lock.ownedBy(tx)).toBe(true);
    lock.release(tx);
    await settle();
    expect(granted).toEqual(['read']);
  });

  it('drops a closed connection from the line and denies everyone on shutdown', async () => {
    const { lock, granted, wait } = lockWithClock(200);
    const owner = holder('owner', false);
    await lock.acquire(owner);
    const gone = holder('gone', true);
    void wait(gone);
    lock.forget(gone);
    const denied = lock.acquire(holder('late', false));
    lock.denyAll(new Error('stopping'));
    await expect(denied).rejects.toThrow('stopping');
    lock.release(owner);
    await settle();
    expect(granted).toEqual([]);
    expect(lock.ownedBy(owner)).toBe(false);
  });
});
