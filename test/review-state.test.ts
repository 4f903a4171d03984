import fc from 'fast-check';
import { loserInvalidAt } from '../core/reviews/conflict.js';
import type { ReviewSubject } from '../core/reviews/contracts.js';
import { mergeAliases, mergePair, rejectionPair } from '../core/reviews/merge.js';
import { decodeReviewCursor, encodeReviewCursor } from '../core/reviews/read.js';
import { DEFAULT_DECIDER, decisionProblem, escalates, escalationDelayMs, keptFactOf, ReviewState } from '../core/reviews/reviewState.js';

const EXISTING = '11111111-1111-4111-8111-111111111111';
const CANDIDATE = '22222222-2222-4222-8222-222222222222';
const STRANGER = '33333333-3333-4333-8333-333333333333';

function subject(kind: ReviewSubject['kind'], factIds: string[] = []): ReviewSubject {
  return { reviewId: '44444444-4444-4444-8444-444444444444', namespace: 'ns', kind, status: 'open', factIds, createdAt: '2026-01-01T00:00:00.000Z', escalatedAt: null, escalateAfterMs: 1000 };
}

describe('ReviewState (the review workflow state)', () => {
  it('takes the first valid decision and records everything after it as ignored', () => {
    const state = new ReviewState(subject('merge'));
    expect(state.receive('approve', undefined)).toBeNull();
    expect(state.decision).toEqual({ decision: 'approve', keepFactId: null, by: DEFAULT_DECIDER, note: null, requestId: null });
    expect(state.receive('reject', { by: 'bob' })).toEqual({ signal: 'reject', reason: 'already decided: approve' });
    expect(state.decision?.decision).toBe('approve');
    expect(state.snapshot()).toMatchObject({ ignoredCount: 1, ignored: [{ signal: 'reject' }] });
  });

  it('keeps who decided and why', () => {
    const state = new ReviewState(subject('merge'));
    state.receive('reject', { by: 'alice', note: 'different companies', request_id: 'req-1' });
    expect(state.decision).toEqual({ decision: 'reject', keepFactId: null, by: 'alice', note: 'different companies', requestId: 'req-1' });
  });

  it('ignores a resolve on a non-conflict item, a keep_fact_id that is not one of the facts, and malformed arguments', () => {
    const merge = new ReviewState(subject('merge'));
    expect(merge.receive('resolve', { keep_fact_id: EXISTING })?.reason).toMatch(/conflict items only/);
    const conflict = new ReviewState(subject('conflict', [EXISTING, CANDIDATE]));
    expect(conflict.receive('resolve', { keep_fact_id: STRANGER })?.reason).toMatch(/keep_fact_id: must be one of/);
    expect(conflict.receive('resolve', { keep_fact_id: 'nope' })?.reason).toMatch(/invalid argument: keep_fact_id/);
    expect(conflict.receive('resolve', undefined)?.reason).toMatch(/invalid argument/);
    expect(conflict.receive('approve', 'yes')?.reason).toMatch(/invalid argument/);
    expect(conflict.receive('approve', { by: '' })?.reason).toMatch(/invalid argument: by/);
    expect(conflict.decided).toBe(false);
    expect(conflict.snapshot().ignoredCount).toBe(5);
    expect(conflict.receive('resolve', { keep_fact_id: CANDIDATE })).toBeNull();
    expect(conflict.decision?.keepFactId).toBe(CANDIDATE);
  });

  it('keeps only the latest ignored signals but counts them all', () => {
    const state = new ReviewState(subject('conflict', [EXISTING, CANDIDATE]));
    for (let i = 0; i < 30; i++) state.receive('resolve', { keep_fact_id: STRANGER });
    expect(state.snapshot().ignored).toHaveLength(20);
    expect(state.snapshot().ignoredCount).toBe(30);
  });

  it('starts escalated when the item already was', () => {
    expect(new ReviewState({ ...subject('merge'), escalatedAt: '2026-01-04T00:00:00.000Z' }).escalated).toBe(true);
    expect(new ReviewState(subject('merge')).escalated).toBe(false);
  });
});

describe('decision rules', () => {
  it('maps approve/reject of a conflict to the new and the existing fact', () => {
    const item = { kind: 'conflict' as const, factIds: [EXISTING, CANDIDATE] };
    expect(keptFactOf(item, 'approve')).toBe(CANDIDATE);
    expect(keptFactOf(item, 'reject')).toBe(EXISTING);
    expect(keptFactOf(item, 'resolve', EXISTING)).toBe(EXISTING);
    expect(keptFactOf({ kind: 'merge', factIds: [] }, 'approve')).toBeNull();
  });

  it('says why a decision does not fit (400-type vs 409-type)', () => {
    expect(decisionProblem({ kind: 'merge', factIds: [] }, 'resolve', EXISTING)?.status).toBe('conflict');
    expect(decisionProblem({ kind: 'conflict', factIds: [EXISTING, CANDIDATE] }, 'resolve', STRANGER)).toMatchObject({ status: 'invalid', field: 'keep_fact_id' });
    expect(decisionProblem({ kind: 'conflict', factIds: [EXISTING] }, 'approve')).toMatchObject({ status: 'conflict', field: 'fact_ids' });
    expect(decisionProblem({ kind: 'task_budget', factIds: [] }, 'approve')).toBeNull();
    expect(decisionProblem({ kind: 'conflict', factIds: [EXISTING, CANDIDATE] }, 'resolve', EXISTING)).toBeNull();
  });

  it('escalates decisions, not informational items', () => {
    expect(['conflict', 'merge', 'task_budget'].every((k) => escalates(k as 'merge'))).toBe(true);
    expect(escalates('rejected_write')).toBe(false);
    expect(escalates('budget')).toBe(false);
  });

  it('escalation delay counts from the item creation and is never negative', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 1, max: 2 ** 32 }), fc.integer({ min: 0, max: 2 ** 41 }), (created, after, now) => {
        const delay = escalationDelayMs(created, after, now);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBe(now >= created + after ? 0 : created + after - now);
      }),
    );
  });
});

describe('merge helpers', () => {
  it("merges the loser's name and aliases into the survivor's aliases, once each, never the survivor's name", () => {
    expect(mergeAliases('Acme', ['ACME Inc'], 'Acme Corp', ['AcmeCo', 'acme', 'acme inc', ' '])).toEqual(['ACME Inc', 'Acme Corp', 'AcmeCo']);
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string()), fc.string(), fc.array(fc.string()), (sName, sAliases, lName, lAliases) => {
        const merged = mergeAliases(sName, sAliases, lName, lAliases);
        const keys = merged.map((a) => a.toLowerCase());
        expect(new Set(keys).size).toBe(keys.length);
        expect(keys).not.toContain(sName.trim().toLowerCase());
        if (lName.trim() && lName.trim().toLowerCase() !== sName.trim().toLowerCase()) expect(keys).toContain(lName.trim().toLowerCase());
      }),
    );
  });

  it('reads the pair from the payload, else from entity_ids', () => {
    expect(mergePair({ entity_ids: ['a', 'b'], payload: {} })).toEqual({ survivorId: 'a', loserId: 'b' });
    expect(mergePair({ entity_ids: ['a', 'b'], payload: { survivor_id: 'b', loser_id: 'a' } })).toEqual({ survivorId: 'b', loserId: 'a' });
    expect(mergePair({ entity_ids: ['a'], payload: {} })).toBeNull();
    expect(mergePair({ entity_ids: ['a', 'a'], payload: {} })).toBeNull();
  });

  it('orders a rejected pair so that entity_a < entity_b', () => {
    expect(rejectionPair(CANDIDATE, EXISTING)).toEqual([EXISTING, CANDIDATE]);
    expect(rejectionPair(EXISTING, CANDIDATE)).toEqual([EXISTING, CANDIDATE]);
  });
});

describe('conflict resolution times', () => {
  const d = (s: string) => new Date(s);
  const now = d('2026-07-01T00:00:00Z');
  it('ends the loser where the kept fact begins, or makes it never hold when it begins later, else now', () => {
    // Same world time: the loser never held.
    expect(loserInvalidAt({ validFrom: d('2026-05-01T00:00:00Z') }, { validFrom: d('2026-05-01T00:00:00Z') }, now)).toEqual(d('2026-05-01T00:00:00Z'));
    // A backfill kept as history: it held until the kept value began.
    expect(loserInvalidAt({ validFrom: d('2026-06-01T00:00:00Z') }, { validFrom: d('2026-05-01T00:00:00Z') }, now)).toEqual(d('2026-06-01T00:00:00Z'));
    // The loser began later than the kept value: it never held.
    expect(loserInvalidAt({ validFrom: d('2026-05-01T00:00:00Z') }, { validFrom: d('2026-06-01T00:00:00Z') }, now)).toEqual(d('2026-06-01T00:00:00Z'));
    expect(loserInvalidAt({ validFrom: d('2026-05-01T00:00:00Z') }, { validFrom: null }, now)).toEqual(d('2026-05-01T00:00:00Z'));
    expect(loserInvalidAt({ validFrom: null }, { validFrom: null }, now)).toEqual(now);
  });
});

describe('review list cursor', () => {
  it('round-trips and rejects anything else', () => {
    const c = { createdMicros: '1790000000123456', id: EXISTING };
    expect(decodeReviewCursor(encodeReviewCursor(c))).toEqual(c);
    expect(decodeReviewCursor('garbage')).toBeNull();
    expect(decodeReviewCursor(Buffer.from(JSON.stringify(['1.5', EXISTING])).toString('base64url'))).toBeNull();
    expect(decodeReviewCursor(Buffer.from(JSON.stringify(['15', 'x'])).toString('base64url'))).toBeNull();
  });
});
