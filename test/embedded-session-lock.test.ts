import { SessionLock } from '../core/embedded/sessionLock.js';

/** A connection as the lock sees it. */
const holder = (name: string, readsFirst: boolean) => ({ name, readsFirst });
type Holder = ReturnType<typeof holder>;

function lockServing(readsInARow: number) {
  const lock = new SessionLock<Holder>(readsInARow);
  const granted: string[] = [];
  const wait = (h: Holder) => lock.acquire(h).then(() => granted.push(h.name));
  return { lock, granted, wait };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Releases the session as each holder gets it, until nobody waits; returns the order they got it in. */
async function drain(lock: SessionLock<Holder>, granted: string[], first: Holder, all: Holder[]): Promise<string[]> {
  let current = first;
  for (;;) {
    const before = granted.length;
    lock.release(current);
    await settle();
    if (granted.length === before) return granted;
    current = all.find((h) => h.name === granted[granted.length - 1])!;
  }
}

describe('the lock on the single PGlite session', () => {
  it('passes the session to waiting reads before writes that queued earlier, and to the oldest other after every few reads', async () => {
    const { lock, granted, wait } = lockServing(2);
    const extraction = holder('extraction', false);
    await lock.acquire(extraction);
    const queued = [holder('write A', false), holder('read 1', true), holder('write B', false), holder('read 2', true), holder('read 3', true), holder('read 4', true)];
    for (const h of queued) void wait(h);
    await drain(lock, granted, extraction, queued);
    expect(granted).toEqual(['read 1', 'read 2', 'write A', 'read 3', 'read 4', 'write B']);
  });

  it('serves others in arrival order when no read waits, and reads in arrival order when no other waits', async () => {
    const { lock, granted, wait } = lockServing(3);
    const owner = holder('owner', false);
    await lock.acquire(owner);
    const writes = [holder('w1', false), holder('w2', false)];
    for (const h of writes) void wait(h);
    await drain(lock, granted, owner, writes);
    expect(granted).toEqual(['w1', 'w2']);

    await lock.acquire(owner);
    granted.length = 0;
    const reads = [holder('r1', true), holder('r2', true), holder('r3', true), holder('r4', true), holder('r5', true)];
    for (const h of reads) void wait(h);
    await drain(lock, granted, owner, reads);
    expect(granted).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('is re-entrant for its owner and keeps everyone else out until released', async () => {
    const { lock, granted, wait } = lockServing(3);
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
    const { lock, granted, wait } = lockServing(3);
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
