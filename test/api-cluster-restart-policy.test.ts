import { RestartPolicy } from '../api/cluster/restartPolicy.js';

describe('RestartPolicy: what the primary does when an API process exits unasked', () => {
  it('stops all when a process exits before any has listened (the configuration or the services are wrong)', () => {
    const policy = new RestartPolicy(5, 60_000);
    const verdict = policy.onExit(1_000);
    expect(verdict.action).toBe('stop');
    expect(verdict).toMatchObject({ reason: expect.stringContaining('before any served') });
  });

  it('starts again a process that exits once another has listened, even one that never listened itself', () => {
    const policy = new RestartPolicy(5, 60_000);
    policy.onListening();
    // The second process, still warming up, is killed: the first proved the configuration.
    expect(policy.onExit(1_000)).toEqual({ action: 'restart' });
  });

  it('stops on the sixth exit within the window, and forgets exits older than it', () => {
    const policy = new RestartPolicy(5, 60_000);
    policy.onListening();
    for (let i = 0; i < 5; i++) expect(policy.onExit(i * 10_000)).toEqual({ action: 'restart' });
    expect(policy.onExit(50_000)).toMatchObject({ action: 'stop', reason: expect.stringContaining('6 times within 60 s') });

    const spaced = new RestartPolicy(5, 60_000);
    spaced.onListening();
    // Five exits, then the sixth a full window after the first: only five remain in the window.
    for (let i = 0; i < 5; i++) spaced.onExit(i * 1_000);
    expect(spaced.onExit(60_000)).toEqual({ action: 'restart' });
    expect(spaced.onExit(60_500)).toMatchObject({ action: 'stop' });
  });
});
