import fc from 'fast-check';
import { COMMON_TERM_SHARE, phaseCount, planKeywordScan, type KeywordTerm } from '../core/retrieval/signals/keywordPlan.js';

/** Whether a row holding `lexemes` matches a plan's query: an OR of quoted lexemes and (a & b) pairs. */
function matches(query: string | null, lexemes: Set<string>): boolean {
  if (query === null) return false;
  return query.split(' | ').some((part) => {
    const operands = [...part.matchAll(/'([^']*)'/g)].map((m) => m[1]);
    return operands.every((o) => lexemes.has(o));
  });
}

const termsArb = fc
  .uniqueArray(
    fc.record({ lexeme: fc.stringMatching(/^[a-z]{2,6}$/), share: fc.double({ min: 0.0001, max: 0.3, noNaN: true }) }),
    { minLength: 1, maxLength: 7, selector: (t) => t.lexeme },
  )
  .map((ts) => ts.map((t): KeywordTerm => ({ ...t, idf: Math.log(1 + (1 - t.share) / (t.share + 0.0001)) })));

describe('keyword scan plan', () => {
  it('bounds every candidate a phase leaves unread, and each bound is reached by one (exact MaxScore bounds)', () => {
    fc.assert(
      fc.property(
        termsArb,
        fc.constantFrom(1_000, 100_000),
        fc.constantFrom([0], [1000], [200, 3000]),
        fc.constantFrom(0, 500, 1e12),
        fc.constantFrom('rarer' as const, 'joint' as const),
        (terms, rows, phaseRows, pairRows, pairEstimate) => {
          const plan = planKeywordScan(terms, rows, { phaseRows, pairRows, pairEstimate })!;
          expect(plan.phases.length).toBeLessThanOrEqual(phaseCount({ phaseRows, pairRows }));
          const generating = new Set(plan.candidates.split(' | ').map((o) => o.slice(1, -1)));
          // Every set of terms a row can hold, with its score.
          const rowsByTerms = Array.from({ length: (1 << terms.length) - 1 }, (_, i) => i + 1).map((set) => {
            const held = terms.filter((_, j) => set & (1 << j));
            return { lexemes: new Set(held.map((t) => t.lexeme)), score: held.reduce((s, t) => s + t.idf, 0) };
          });
          const candidates = rowsByTerms.filter((r) => [...r.lexemes].some((l) => generating.has(l)));
          for (const candidate of candidates) {
            // Read by exactly one phase: the first whose query it matches.
            const readBy = plan.phases.findIndex((ph) => matches(ph.match, candidate.lexemes));
            expect(readBy).toBeGreaterThanOrEqual(0);
            // A row a phase's query matches holds one of the phase's generators (what the per-user term index is asked).
            expect(plan.phases[readBy].generators.some((g) => candidate.lexemes.has(g))).toBe(true);
            plan.phases.forEach((ph, k) => {
              if (matches(ph.match, candidate.lexemes)) expect(ph.generators.some((g) => candidate.lexemes.has(g))).toBe(true);
              expect(matches(ph.readBefore, candidate.lexemes)).toBe(k > readBy);
              if (k < readBy) expect(candidate.score).toBeLessThanOrEqual(ph.unreadBound + 1e-9);
            });
          }
          plan.phases.forEach((ph, k) => {
            const unread = candidates.filter((c) => !plan.phases.slice(0, k + 1).some((p) => matches(p.match, c.lexemes)));
            const best = unread.length ? Math.max(...unread.map((c) => c.score)) : Number.NEGATIVE_INFINITY;
            if (unread.length) expect(ph.unreadBound).toBeCloseTo(best, 9);
            else expect(ph.unreadBound).toBe(Number.NEGATIVE_INFINITY);
          });
        },
      ),
      { numRuns: 400, seed: 5 },
    );
  });

  it('reads the pairs of a rare term with another query term first, and only then each term by rarity', () => {
    const term = (lexeme: string, share: number): KeywordTerm => ({ lexeme, share, idf: Math.log(1 + (1 - share) / (share + 0.0001)) });
    // A first and last name (rare), a project word (rare enough to generate), a common word (scores only).
    const terms = [term('sophia', 0.003), term('campbel', 0.002), term('mercuri', 0.014), term('work', 0.25)];
    const plan = planKeywordScan(terms, 100_000, { phaseRows: [1000], pairRows: 1000 })!;
    expect(plan.candidates).toBe("'campbel' | 'sophia' | 'mercuri'");
    expect(plan.phases.map((p) => p.match)).toEqual([
      "('campbel' & 'sophia') | ('campbel' & 'mercuri') | ('campbel' & 'work') | ('sophia' & 'mercuri') | ('sophia' & 'work')",
      "'campbel' | 'sophia'",
      "'mercuri'",
    ]);
    const idf = Object.fromEntries(terms.map((t) => [t.lexeme, t.idf]));
    // "mercuri" is too common to pair (1,400 rows): after the pairs an unread row holds one rare name alone, or
    // "mercuri" with "work"; after the names, only the latter.
    expect(plan.phases[0].unreadBound).toBeCloseTo(Math.max(idf.campbel, idf.mercuri + idf.work), 12);
    expect(plan.phases[1].unreadBound).toBeCloseTo(idf.mercuri + idf.work, 12);
    expect(plan.phases[2].unreadBound).toBe(Number.NEGATIVE_INFINITY);
    expect(terms.filter((t) => t.share > COMMON_TERM_SHARE).map((t) => t.lexeme)).toEqual(['work']);
  });

  it('pairs two common-ish words that rarely meet only when pairs are estimated jointly', () => {
    const term = (lexeme: string, share: number): KeywordTerm => ({ lexeme, share, idf: Math.log(1 + (1 - share) / (share + 0.0001)) });
    // A person's first and last name, each in about 2 % of a million rows: 18,000 rows apiece, together about 360.
    const terms = [term('aurora', 0.018), term('lopez', 0.019), term('work', 0.25)];
    const options = { phaseRows: [1000], pairRows: 1000 };
    const byRarer = planKeywordScan(terms, 1_000_000, options)!;
    expect(byRarer.phases.map((p) => p.match)).toEqual(["'aurora'", "'lopez'"]);
    const joint = planKeywordScan(terms, 1_000_000, { ...options, pairEstimate: 'joint' })!;
    // "work" meets either name in about 4,500 rows: too many to pair.
    expect(joint.phases.map((p) => p.match)).toEqual(["('aurora' & 'lopez')", "'aurora'", "'lopez'"]);
    const idf = Object.fromEntries(terms.map((t) => [t.lexeme, t.idf]));
    // After the pair, an unread row holds one name, with "work" at best.
    expect(joint.phases[0].unreadBound).toBeCloseTo(idf.aurora + idf.work, 12);
    expect(joint.phases[1].readBefore).toBe("('aurora' & 'lopez')");
  });
});
