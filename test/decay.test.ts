import { daysSince, effectiveConfidence, freshness, HALF_LIFE_DAYS } from '../core/domain/decay.js';
import { predicateSpec } from '../core/domain/predicates.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000);

describe('effective confidence', () => {
  it('halves once per half-life for each decaying class', () => {
    expect(HALF_LIFE_DAYS).toEqual({ permanent: null, slow_decay: 180, fast_decay: 21 });
    expect(effectiveConfidence(0.8, 'fast_decay', daysAgo(21), NOW)).toBeCloseTo(0.4, 10);
    expect(effectiveConfidence(0.8, 'fast_decay', daysAgo(42), NOW)).toBeCloseTo(0.2, 10);
    expect(effectiveConfidence(0.8, 'slow_decay', daysAgo(180), NOW)).toBeCloseTo(0.4, 10);
    expect(effectiveConfidence(0.8, 'slow_decay', daysAgo(90), NOW)).toBeCloseTo(0.8 * Math.SQRT1_2, 10);
  });

  it('never decays permanent facts', () => {
    expect(effectiveConfidence(0.9, 'permanent', daysAgo(10_000), NOW)).toBe(0.9);
  });

  it('is the stored confidence at the moment of confirmation and never grows for future confirmations', () => {
    expect(effectiveConfidence(0.7, 'fast_decay', NOW, NOW)).toBe(0.7);
    expect(effectiveConfidence(0.7, 'fast_decay', daysAgo(-5), NOW)).toBe(0.7);
    expect(daysSince(NOW, daysAgo(-5))).toBe(0);
  });

  it('decays fast facts faster than slow ones', () => {
    const fast = effectiveConfidence(0.9, 'fast_decay', daysAgo(30), NOW);
    const slow = effectiveConfidence(0.9, 'slow_decay', daysAgo(30), NOW);
    expect(fast).toBeLessThan(slow);
    expect(slow).toBeLessThan(0.9);
  });
});

describe('decay classes of what people like and avoid', () => {
  it('a liking fades in weeks; what someone avoids (a diet, a habit given up, a way not to be called) in months', () => {
    expect(predicateSpec('likes', 'preferences').decayClass).toBe('fast_decay');
    expect(predicateSpec('avoids', 'preferences').decayClass).toBe('slow_decay');
  });
});

describe('freshness', () => {
  it.each([
    [0, 'confirmed just now'],
    [10 / 1440, 'confirmed 10 minutes ago'],
    [1 / 1440, 'confirmed 1 minute ago'],
    [5 / 24, 'confirmed 5 hours ago'],
    [1, 'confirmed yesterday'],
    [3, 'confirmed 3 days ago'],
    [13.9, 'confirmed 13 days ago'],
    [15, 'confirmed 2 weeks ago'],
    [75, 'confirmed 2 months ago'],
    [400, 'confirmed 1 year ago'],
    [800, 'confirmed 2 years ago'],
  ])('%s days → %s', (days, text) => {
    expect(freshness(NOW, daysAgo(days))).toBe(text);
  });

  it('treats a confirmation after `now` as just now', () => {
    expect(freshness(NOW, daysAgo(-1))).toBe('confirmed just now');
  });
});
