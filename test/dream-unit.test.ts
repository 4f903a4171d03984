import { organizationNameKey, sameOrganizationName } from '../core/entities/nameKey.js';
import { DREAM_PASSES } from '../core/dream/contracts.js';
import { uniquePairs } from '../core/dream/duplicates.js';
import { addBatch, emptyReport, nextPass } from '../core/dream/report.js';
import { runIdForWorkflow } from '../core/dream/runs.js';

describe('organizationNameKey (legal form and organizational suffixes)', () => {
  it.each([
    ['Acme', 'acme'],
    ['Acme Corp', 'acme'],
    ['Acme Corp.', 'acme'],
    ['Acme, Inc.', 'acme'],
    ['The Acme Company', 'acme'],
    ['Beacon Capital GmbH', 'beacon'],
    ['Beacon Capital', 'beacon'],
    ['Nestlé S.A.', 'nestlé'],
    ['Smith & Co', 'smith'],
    ['Globex Holdings PLC', 'globex'],
    ['Capital Group', 'capital'],
    ['Group', 'group'],
    ['Corp', 'corp'],
    ['Inc Magazine Group', 'inc magazine'],
  ])('%s → %s', (name, key) => {
    expect(organizationNameKey(name)).toBe(key);
  });

  it('matches names that differ only by suffix, in both directions, and nothing else', () => {
    expect(sameOrganizationName('Acme', 'Acme Corp')).toBe(true);
    expect(sameOrganizationName('Acme Corp', 'Acme')).toBe(true);
    expect(sameOrganizationName('Beacon', 'Beacon Capital GmbH')).toBe(true);
    expect(sameOrganizationName('Beacon Capital', 'Beacon Capital GmbH')).toBe(true);
    expect(sameOrganizationName('Acme', 'Acme Rockets')).toBe(false);
    expect(sameOrganizationName('Paris', 'London')).toBe(false);
    expect(sameOrganizationName('Capital One', 'Capital')).toBe(false);
    // Suffixes are stripped from the end only: a legal word inside a name is part of it.
    expect(sameOrganizationName('Co-op Bank', 'Bank')).toBe(false);
  });
});

describe('dream report', () => {
  it('adds batches: counts summed per pass, seconds per pass and in total', () => {
    let report = emptyReport();
    report = addBatch(report, 'decay', { facts_updated: 10, stale_marked: 2 }, 0.5);
    report = addBatch(report, 'decay', { facts_updated: 5, stale_marked: 0 }, 0.25);
    report = addBatch(report, 'duplicates', { entities_checked: 7, pairs_proposed: 1 }, 0.125);
    expect(report.passes.decay).toEqual({ facts_updated: 15, stale_marked: 2, seconds: 0.75 });
    expect(report.passes.duplicates).toEqual({ entities_checked: 7, pairs_proposed: 1, seconds: 0.125 });
    expect(report.passes.reembed).toEqual({ episodes_reembedded: 0, facts_reembedded: 0, seconds: 0 });
    expect(report.totals).toEqual({ batches: 3, seconds: 0.875 });
  });

  it('walks the passes in order', () => {
    expect(DREAM_PASSES).toEqual(['decay', 'session_expiry', 'duplicates', 'reembed']);
    expect(nextPass(DREAM_PASSES, 'decay')).toBe('session_expiry');
    expect(nextPass(DREAM_PASSES, 'duplicates')).toBe('reembed');
    expect(nextPass(DREAM_PASSES, 'reembed')).toBeNull();
  });
});

describe('dream helpers', () => {
  it('derives one stable UUID-shaped run id per workflow id', () => {
    const a = runIdForWorkflow('dream-2026-11-25T03:00:00Z');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(runIdForWorkflow('dream-2026-11-25T03:00:00Z')).toBe(a);
    expect(runIdForWorkflow('dream-2026-11-26T03:00:00Z')).not.toBe(a);
  });

  it('keeps one pair per couple of entities with its most telling reason', () => {
    const pairs = uniquePairs([
      { x: 'b', y: 'a', reason: 'similar_name' },
      { x: 'a', y: 'b', reason: 'shared_alias' },
      { x: 'c', y: 'a', reason: 'legal_suffix' },
      { x: 'a', y: 'c', reason: 'similar_name' },
    ]);
    expect(pairs).toEqual([
      { lo: 'a', hi: 'b', reason: 'shared_alias' },
      { lo: 'a', hi: 'c', reason: 'legal_suffix' },
    ]);
  });
});
