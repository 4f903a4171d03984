import { AdmissionGate } from '../api/admissionGate.js';

describe('AdmissionGate', () => {
  it('admits up to its capacity at once and passes a released slot to the next in line', async () => {
    const gate = new AdmissionGate(2, 10_000);
    const a = await gate.enter();
    const b = await gate.enter();
    expect([a, b].every(Boolean)).toBe(true);
    const c = gate.enter();
    expect(gate.waiting).toBe(1);
    a!();
    a!(); // a second release changes nothing
    const released = await c;
    expect(released).not.toBeNull();
    expect(gate.inProgress).toBe(2);
    b!();
    released!();
    expect(gate.inProgress).toBe(0);
  });

  it('refuses a request that waited its whole queue timeout, and counts it', async () => {
    const gate = new AdmissionGate(1, 20);
    const held = await gate.enter();
    expect(await gate.enter()).toBeNull();
    expect(gate.refused).toBe(1);
    expect(gate.waiting).toBe(0);
    held!();
    expect(gate.inProgress).toBe(0);
  });

  it('serves the line in order until its oldest waited half the timeout, then newest first', async () => {
    let now = 0;
    const gate = new AdmissionGate(1, 10_000, () => now);
    const order: string[] = [];
    const held = await gate.enter();
    const line = ['first', 'second', 'third'].map((name) => gate.enter().then((release) => (order.push(name), release)));
    held!(); // not congested: the oldest goes
    const first = await line[0];
    now = 6_000; // the oldest waiter has now waited more than half the timeout: newest first
    first!();
    const third = await line[2];
    third!();
    (await line[1])!();
    expect(order).toEqual(['first', 'third', 'second']);
    expect(gate.inProgress).toBe(0);
  });
});
