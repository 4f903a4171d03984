import { KEEP_VERBATIM_TURNS, SIGNALS_BEFORE_CONTINUE_AS_NEW, turnSignalSchema } from '../core/sessions/contracts.js';
import { SessionState } from '../core/sessions/state.js';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const HOUR = 3_600_000;

function opened(state: SessionState, sessionId = A, turnCount = 0) {
  state.attach({ sessionId, turnCount, summarizedThrough: 0, ttlMs: HOUR });
}

describe('SessionState', () => {
  it('every turn resets the inactivity timer', () => {
    const state = SessionState.fresh(HOUR, 0);
    opened(state);
    state.onTurn({ sessionId: A, turnIndex: 0, ttlMs: HOUR }, 1_000);
    expect(state.msUntilExpiry(1_000)).toBe(HOUR);
    state.onTurn({ sessionId: A, turnIndex: 1, ttlMs: HOUR }, 30 * 60_000);
    expect(state.expiresAtMs()).toBe(30 * 60_000 + HOUR);
    expect(state.msUntilExpiry(2 * HOUR)).toBe(0);
  });

  it('takes the TTL the latest turn carries (ttl_seconds override)', () => {
    const state = SessionState.fresh(HOUR, 0);
    opened(state);
    state.onTurn({ sessionId: A, turnIndex: 0, ttlMs: 60_000 }, 0);
    expect(state.expiresAtMs()).toBe(60_000);
  });

  it('keeps turns signalled before the first activity answered', () => {
    const state = SessionState.fresh(HOUR, 0);
    state.onTurn({ sessionId: A, turnIndex: 4, ttlMs: 120_000 }, 10);
    state.attach({ sessionId: A, turnCount: 3, summarizedThrough: 0, ttlMs: HOUR });
    expect(state.knownTurnCount).toBe(5);
    expect(state.view().ttlMs).toBe(120_000);
  });

  it('asks for a fold above 20 unsummarized turns, keeping 10 verbatim', () => {
    const state = SessionState.fresh(HOUR, 0);
    opened(state);
    for (let i = 0; i < 20; i++) state.onTurn({ sessionId: A, turnIndex: i, ttlMs: HOUR }, i);
    expect(state.summaryDue()).toBeNull();
    state.onTurn({ sessionId: A, turnIndex: 20, ttlMs: HOUR }, 20);
    expect(state.summaryDue()).toEqual({ sessionId: A, throughTurn: 21 - KEEP_VERBATIM_TURNS });
    state.summarized(A, 11);
    expect(state.summaryDue()).toBeNull();
    // 10 more turns: 20 unsummarized, still no fold; the 21st asks again.
    for (let i = 21; i < 31; i++) state.onTurn({ sessionId: A, turnIndex: i, ttlMs: HOUR }, i);
    expect(state.summaryDue()).toBeNull();
    state.onTurn({ sessionId: A, turnIndex: 31, ttlMs: HOUR }, 31);
    expect(state.summaryDue()).toEqual({ sessionId: A, throughTurn: 22 });
  });

  it('re-arms a full TTL when the session is kept alive', () => {
    const state = SessionState.fresh(HOUR, 0);
    opened(state);
    const version = state.changeVersion;
    state.rearm(HOUR);
    expect(state.changeVersion).not.toBe(version);
    expect(state.expiresAtMs()).toBe(2 * HOUR);
  });

  it('follows a fresh session opened while the old one was being archived', () => {
    const state = SessionState.fresh(HOUR, 0);
    opened(state, A, 5);
    state.onTurn({ sessionId: B, turnIndex: 0, ttlMs: HOUR }, 100);
    state.markArchived(A);
    expect(state.isArchived()).toBe(false);
    expect(state.currentSessionId).toBe(B);
    expect(state.knownTurnCount).toBe(1);
    state.markArchived(B);
    expect(state.isArchived()).toBe(true);
    expect(state.view().status).toBe('archived');
  });

  it('continues as new after many signals, carrying its state', () => {
    const state = SessionState.fresh(HOUR, 0);
    opened(state);
    for (let i = 0; i < SIGNALS_BEFORE_CONTINUE_AS_NEW; i++) {
      state.onTurn({ sessionId: A, turnIndex: i, ttlMs: HOUR }, i);
      state.summarized(A, Math.max(0, i + 1 - KEEP_VERBATIM_TURNS));
    }
    expect(state.shouldContinueAsNew()).toBe(true);
    const next = new SessionState(state.carry());
    expect(next.shouldContinueAsNew()).toBe(false);
    expect(next.view()).toMatchObject({ sessionId: A, turnCount: SIGNALS_BEFORE_CONTINUE_AS_NEW, status: 'active', signalsThisRun: 0 });
  });

  it('validates the turn signal (it lives in history)', () => {
    expect(turnSignalSchema.safeParse({ sessionId: A, turnIndex: 0, ttlMs: 1000 }).success).toBe(true);
    expect(turnSignalSchema.safeParse({ sessionId: 'x', turnIndex: -1, ttlMs: 0 }).success).toBe(false);
  });
});
