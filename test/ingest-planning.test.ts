import { planWrites } from '../core/ingest/contradiction.js';
import type { ExistingFactRef, ResolvedEntity, TimedFact, WritePlan } from '../core/ingest/contracts.js';
import { classifyCandidate } from '../core/ingest/dedup.js';
import { applyWriteLimit } from '../core/ingest/writeLimit.js';

/**
 * A candidate as an extractor gives it. A negated one ended what held and says what held (`held_text`), unless it is
 * a `denial` ("S does not live in Rome."), which never held.
 */
function fact(partial: Partial<TimedFact> & { id: string; predicate?: string; value?: string | null; objectId?: string | null; confidence?: number; negated?: boolean; denial?: boolean }): TimedFact {
  const negated = partial.negated ?? partial.denial ?? false;
  return {
    id: partial.id,
    subjectId: partial.subjectId ?? 'S',
    objectId: partial.objectId ?? null,
    decayClass: 'slow_decay',
    sensitivity: 'internal',
    singleValued: partial.singleValued ?? true,
    decision: partial.decision ?? { kind: 'new' },
    validFrom: partial.validFrom ?? null,
    invalidAt: partial.invalidAt ?? null,
    candidate: {
      subject: 'S',
      predicate: partial.predicate ?? 'lives_in',
      predicate_raw: 'lives in',
      family: 'places',
      object: null,
      value: partial.value === undefined ? 'Rome' : partial.value,
      fact_text: `S lives in ${partial.value ?? 'Rome'}.`,
      memory_kind: 'semantic',
      importance: 0.5,
      confidence: partial.confidence ?? 0.7,
      negated,
      ...(negated && !partial.denial ? { held_text: `S lives in ${partial.value ?? 'Rome'}.` } : {}),
      time_expression: null,
    },
  };
}

const existing = (over: Partial<ExistingFactRef> = {}): ExistingFactRef => ({
  id: 'old',
  subjectId: 'S',
  predicate: 'lives_in',
  objectId: null,
  value: 'Paris',
  validFrom: '2026-01-01T00:00:00.000Z',
  invalidAt: null,
  confidence: 0.7,
  factText: 'S lives in Paris.',
  ...over,
});

describe('contradiction planning (pure)', () => {
  it('newer world time supersedes the current value', () => {
    const plan = planWrites([fact({ id: 'new', validFrom: '2026-02-01T00:00:00.000Z' })], [existing()], '2026-02-01T00:00:00.000Z');
    expect(plan.inserts.map((f) => f.id)).toEqual(['new']);
    expect(plan.invalidations).toEqual([{ factId: 'old', invalidAt: '2026-02-01T00:00:00.000Z', invalidatedBy: 'new', candidateId: 'new' }]);
  });

  it.each([
    [0.9, 'refinements'],
    [0.5, 'rejections'],
    [0.7, 'reviews'],
  ] as const)('a tie in world time with confidence %s goes to %s', (confidence, bucket) => {
    const plan = planWrites([fact({ id: 'new', validFrom: '2026-01-01T00:00:00.000Z', confidence })], [existing()], '2026-01-05T00:00:00.000Z');
    const buckets = ['refinements', 'rejections', 'reviews'] as const;
    for (const b of buckets) expect(plan[b]).toHaveLength(b === bucket ? 1 : 0);
    expect(plan.invalidations).toHaveLength(0);
    // Only the equal-confidence conflict keeps the candidate (awaiting review).
    expect(plan.inserts.map((f) => f.id)).toEqual(bucket === 'reviews' ? ['new'] : []);
  });

  it('a late value with an earlier valid_from is history closed by its successor, not arbitrated (was: confidence arbitrated a backfill)', () => {
    for (const confidence of [0.5, 0.7, 0.9]) {
      const backfill = planWrites([fact({ id: 'b', validFrom: '2025-06-01T00:00:00.000Z', confidence })], [existing()], '2026-03-01T00:00:00.000Z');
      expect(backfill.inserts).toEqual([expect.objectContaining({ id: 'b', validFrom: '2025-06-01T00:00:00.000Z', invalidAt: '2026-01-01T00:00:00.000Z', invalidatedBy: 'old' })]);
      expect([backfill.rejections, backfill.reviews, backfill.refinements, backfill.invalidations, backfill.rechains]).toEqual([[], [], [], [], []]);
    }
    const history = planWrites(
      [fact({ id: 'h', validFrom: '2025-01-01T00:00:00.000Z', invalidAt: '2025-12-01T00:00:00.000Z' })],
      [existing()],
      '2026-03-01T00:00:00.000Z',
    );
    // An end the text gave, before the successor starts: kept, and nothing closes it.
    expect(history.inserts).toEqual([expect.objectContaining({ id: 'h', invalidAt: '2025-12-01T00:00:00.000Z', invalidatedBy: null })]);
    expect(history.invalidations).toHaveLength(0);
  });

  it('a late value between two known values slots in: the earlier one is re-closed at its start', () => {
    const chain = [
      existing({ id: 'jan', value: 'Paris', validFrom: '2026-01-01T00:00:00.000Z', invalidAt: '2026-05-01T00:00:00.000Z', invalidatedBy: 'may' }),
      existing({ id: 'may', value: 'Oslo', validFrom: '2026-05-01T00:00:00.000Z' }),
    ];
    const plan = planWrites([fact({ id: 'mar', value: 'Lyon', validFrom: '2026-03-01T00:00:00.000Z' })], chain, '2026-06-01T00:00:00.000Z');
    expect(plan.inserts).toEqual([expect.objectContaining({ id: 'mar', validFrom: '2026-03-01T00:00:00.000Z', invalidAt: '2026-05-01T00:00:00.000Z', invalidatedBy: 'may' })]);
    expect(plan.rechains).toEqual([
      { factId: 'jan', validFrom: '2026-01-01T00:00:00.000Z', invalidAt: '2026-03-01T00:00:00.000Z', invalidatedBy: 'mar', statedFrom: ['2026-01-01T00:00:00.000Z'], candidateId: 'mar' },
    ]);
    expect([plan.invalidations, plan.reviews, plan.rejections]).toEqual([[], [], []]);
  });

  it('the same value again with nothing between confirms, reaching back to the earlier start; after another value it is a new interval', () => {
    const earlier = planWrites([fact({ id: 'again', value: 'Paris', validFrom: '2025-10-01T00:00:00.000Z' })], [existing()], '2026-03-01T00:00:00.000Z');
    expect(earlier.inserts).toHaveLength(0);
    expect(earlier.confirmations).toEqual([{ factId: 'old', candidateId: 'again' }]);
    expect(earlier.rechains).toEqual([
      { factId: 'old', validFrom: '2025-10-01T00:00:00.000Z', invalidAt: null, invalidatedBy: null, statedFrom: ['2025-10-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'], candidateId: 'again' },
    ]);
    const chain = [
      existing({ id: 'a', value: 'Paris', validFrom: '2026-01-01T00:00:00.000Z', invalidAt: '2026-03-01T00:00:00.000Z', invalidatedBy: 'b' }),
      existing({ id: 'b', value: 'Oslo', validFrom: '2026-03-01T00:00:00.000Z' }),
    ];
    const returns = planWrites([fact({ id: 'a2', value: 'Paris', validFrom: '2026-06-01T00:00:00.000Z' })], chain, '2026-06-01T00:00:00.000Z');
    expect(returns.inserts.map((f) => f.id)).toEqual(['a2']);
    expect(returns.invalidations).toEqual([{ factId: 'b', invalidAt: '2026-06-01T00:00:00.000Z', invalidatedBy: 'a2', candidateId: 'a2' }]);
  });

  it('a value that falls between two statements of one stored fact splits it (A March, A July, then B June)', () => {
    const stored = existing({ id: 'a', value: 'Paris', validFrom: '2026-03-01T00:00:00.000Z', statedFrom: ['2026-03-01T00:00:00.000Z', '2026-07-01T00:00:00.000Z'] });
    const plan = planWrites([fact({ id: 'b', value: 'Oslo', validFrom: '2026-06-01T00:00:00.000Z' })], [stored], '2026-08-01T00:00:00.000Z', () => 'a-later');
    expect(plan.inserts).toEqual([expect.objectContaining({ id: 'b', validFrom: '2026-06-01T00:00:00.000Z', invalidAt: '2026-07-01T00:00:00.000Z', invalidatedBy: 'a-later' })]);
    expect(plan.rechains).toEqual([
      { factId: 'a', validFrom: '2026-03-01T00:00:00.000Z', invalidAt: '2026-06-01T00:00:00.000Z', invalidatedBy: 'b', statedFrom: ['2026-03-01T00:00:00.000Z'], candidateId: 'b' },
    ]);
    expect(plan.splits).toEqual([
      { sourceFactId: 'a', factId: 'a-later', validFrom: '2026-07-01T00:00:00.000Z', invalidAt: null, invalidatedBy: null, statedFrom: ['2026-07-01T00:00:00.000Z'], candidateId: 'b' },
    ]);
  });

  it('multi-valued predicates never contradict', () => {
    const plan = planWrites([fact({ id: 'n', predicate: 'likes', singleValued: false, value: 'tea' })], [existing({ predicate: 'likes', value: 'coffee' })], '2026-03-01T00:00:00.000Z');
    expect(plan.inserts).toHaveLength(1);
    expect(plan.invalidations).toHaveLength(0);
  });

  it('a negation ends the matching fact at its successor\'s start, or keeps history when nothing matches', () => {
    const ends = planWrites(
      [fact({ id: 'neg', value: 'Paris', negated: true, decision: { kind: 'ends', factId: 'old' }, invalidAt: '2026-03-01T00:00:00.000Z' })],
      [existing()],
      '2026-03-01T00:00:00.000Z',
    );
    expect(ends.invalidations).toEqual([{ factId: 'old', invalidAt: '2026-03-01T00:00:00.000Z', invalidatedBy: null, candidateId: 'neg' }]);
    const past = planWrites(
      [
        fact({ id: 'neg', value: 'Google', predicate: 'works_at', negated: true, invalidAt: '2025-05-01T00:00:00.000Z' }),
        fact({ id: 'next', value: 'Anthropic', predicate: 'works_at', validFrom: '2025-05-01T00:00:00.000Z' }),
      ],
      [],
      '2026-02-01T00:00:00.000Z',
    );
    const history = past.inserts.find((f) => f.id === 'neg')!;
    expect(history).toMatchObject({ validFrom: null, invalidAt: '2025-05-01T00:00:00.000Z', invalidatedBy: 'next' });
  });
});

describe('a state said to have held at a point in time ("lived in Paris in 2010")', () => {
  const heldIn2010 = (value: string) =>
    fact({ id: 'h', value, negated: true, validFrom: '2010-01-01T00:00:00.000Z', invalidAt: '2011-01-01T00:00:00.000Z' });
  it('is history of its own: the stored value of now keeps its time, whether the same value or another', () => {
    for (const stored of ['Paris', 'Lyon']) {
      const plan = planWrites([heldIn2010('Paris')], [existing({ value: stored })], '2026-02-01T00:00:00.000Z');
      expect(plan.invalidations).toEqual([]);
      expect(plan.refinements).toEqual([]);
      expect(plan.inserts.map((f) => [f.id, f.validFrom, f.invalidAt])).toEqual([['h', '2010-01-01T00:00:00.000Z', '2011-01-01T00:00:00.000Z']]);
    }
  });
  it('the next period of the same value extends the row it made ("in 2005", then "in 2006"), not lost inside it', () => {
    const stored = existing({ value: 'Lyon', validFrom: '2005-01-01T00:00:00.000Z', invalidAt: '2006-01-01T00:00:00.000Z' });
    const in2006 = fact({ id: 'h', value: 'Lyon', negated: true, validFrom: '2006-01-01T00:00:00.000Z', invalidAt: '2007-01-01T00:00:00.000Z' });
    const plan = planWrites([in2006], [stored], '2026-06-01T00:00:00.000Z');
    expect(plan.inserts).toEqual([]);
    expect(plan.confirmations).toEqual([{ factId: 'old', candidateId: 'h' }]);
    expect(plan.rechains?.map((r) => [r.factId, r.validFrom, r.invalidAt])).toEqual([['old', '2005-01-01T00:00:00.000Z', '2007-01-01T00:00:00.000Z']]);
  });
  it('the row of two periods reads as its earliest, in either order ("in 2006" told first, then "in 2005")', () => {
    const lyonIn = (year: number, id: string) => {
      const f = fact({ id, value: 'Lyon', negated: true, validFrom: `${year}-01-01T00:00:00.000Z`, invalidAt: `${year + 1}-01-01T00:00:00.000Z` });
      const text = `S lived in Lyon in ${year}.`;
      return { ...f, candidate: { ...f.candidate, fact_text: text, held_text: text, held_then: true } };
    };
    const storedIn = (year: number) =>
      existing({ value: 'Lyon', validFrom: `${year}-01-01T00:00:00.000Z`, invalidAt: `${year + 1}-01-01T00:00:00.000Z`, factText: `S lived in Lyon in ${year}.` });
    const late = planWrites([lyonIn(2005, 'h')], [storedIn(2006)], '2026-06-01T00:00:00.000Z');
    expect(late.refinements.map((r) => [r.factId, r.candidateId, r.factText])).toEqual([['old', 'h', 'S lived in Lyon in 2005.']]);
    expect(late.confirmations).toEqual([]);
    expect(late.rechains?.map((r) => [r.factId, r.validFrom, r.invalidAt])).toEqual([['old', '2005-01-01T00:00:00.000Z', '2007-01-01T00:00:00.000Z']]);
    // Told in order, the later period confirms the row and its text stays.
    const inOrder = planWrites([lyonIn(2006, 'h')], [storedIn(2005)], '2026-06-01T00:00:00.000Z');
    expect([inOrder.refinements, inOrder.confirmations]).toEqual([[], [{ factId: 'old', candidateId: 'h' }]]);
    // A stored start that is unknown comes first: nothing told later starts before it.
    const unknownStart = planWrites([lyonIn(2005, 'h')], [existing({ value: 'Lyon', validFrom: null, invalidAt: '2006-06-01T00:00:00.000Z' })], '2026-06-01T00:00:00.000Z');
    expect(unknownStart.refinements).toEqual([]);
  });
  it('said again, confirms the row it made instead of adding another', () => {
    const stored = existing({ value: 'Paris', validFrom: '2010-01-01T00:00:00.000Z', invalidAt: '2011-01-01T00:00:00.000Z' });
    const plan = planWrites([heldIn2010('Paris')], [stored], '2026-02-01T00:00:00.000Z');
    expect(plan.inserts).toEqual([]);
    expect(plan.invalidations).toEqual([]);
  });
});

describe('a statement of unknown start that held until its end', () => {
  it('keeps its end after a dated value that had ended by then ("worked at Acme for ten years" told after "at Globex in 2010")', () => {
    const globex2010 = existing({ id: 'globex', predicate: 'works_at', value: 'Globex', validFrom: '2010-01-01T00:00:00.000Z', invalidAt: '2011-01-01T00:00:00.000Z' });
    const acme = fact({ id: 'acme', predicate: 'works_at', value: 'Acme', negated: true, invalidAt: '2026-06-01T09:05:00.000Z' });
    const plan = planWrites([acme], [globex2010], '2026-06-01T09:05:00.000Z');
    expect(plan.inserts.map((f) => [f.id, f.validFrom, f.invalidAt, f.invalidatedBy])).toEqual([['acme', null, '2026-06-01T09:05:00.000Z', null]]);
    expect(plan.invalidations).toEqual([]);
  });

  it('is one interval with a later statement of its value when what stands between them had ended before it', () => {
    // Told in June, then "worked at Globex in 2010", then "I work at Acme" dated March: told in that order (or any
    // other) it is Acme March to June, not Acme until March and Acme from March on.
    const acmeTenYears = existing({ id: 'ten', predicate: 'works_at', value: 'Acme', validFrom: null, invalidAt: '2026-06-01T09:00:00.000Z' });
    const globex2010 = existing({ id: 'globex', predicate: 'works_at', value: 'Globex', validFrom: '2010-01-01T00:00:00.000Z', invalidAt: '2011-01-01T00:00:00.000Z' });
    const acmeNow = fact({ id: 'now', predicate: 'works_at', value: 'Acme', validFrom: '2026-03-01T09:00:00.000Z' });
    const plan = planWrites([acmeNow], [acmeTenYears, globex2010], '2026-03-01T09:00:00.000Z');
    expect(plan.inserts).toEqual([]);
    expect(plan.confirmations).toEqual([{ factId: 'ten', candidateId: 'now' }]);
    expect(plan.rechains).toEqual([
      { factId: 'ten', validFrom: '2026-03-01T09:00:00.000Z', invalidAt: '2026-06-01T09:00:00.000Z', invalidatedBy: null, statedFrom: ['2026-03-01T09:00:00.000Z'], candidateId: 'now' },
    ]);
    expect(plan.invalidations).toEqual([]);
  });
});

describe('a denial with nothing stored to end ("I don\'t live in Paris.")', () => {
  const june = '2026-06-01T09:00:00.000Z';
  it('held at no time: an instant at its telling, which ends no other value', () => {
    const lyon = existing({ id: 'lyon', value: 'Lyon', validFrom: '2026-01-01T00:00:00.000Z' });
    const plan = planWrites([fact({ id: 'deny', value: 'Paris', denial: true, invalidAt: june })], [lyon], june);
    expect(plan.inserts.map((f) => [f.id, f.validFrom, f.invalidAt, f.invalidatedBy])).toEqual([['deny', june, june, null]]);
    expect([plan.invalidations, plan.rechains]).toEqual([[], []]);
    // A denial of an unstated job, likewise (multi-valued predicates are not chained).
    const likes = planWrites([fact({ id: 'deny', predicate: 'likes', singleValued: false, value: 'tea', denial: true, invalidAt: june })], [], june);
    expect(likes.inserts.map((f) => [f.validFrom, f.invalidAt])).toEqual([[june, june]]);
  });
  it('ends a statement of its value told before it that arrives after it, which then reads as what held', () => {
    const denied = existing({ id: 'deny', value: 'Paris', validFrom: june, invalidAt: june, factText: 'S does not live in Paris.' });
    const march = '2026-03-01T09:00:00.000Z';
    const plan = planWrites([fact({ id: 'paris', value: 'Paris', validFrom: march })], [denied], march);
    expect(plan.inserts).toEqual([]);
    expect(plan.refinements.map((r) => [r.factId, r.candidateId, r.factText])).toEqual([['deny', 'paris', 'S lives in Paris.']]);
    expect(plan.rechains?.map((r) => [r.factId, r.validFrom, r.invalidAt])).toEqual([['deny', march, june]]);
  });
});

describe('fact dedup classification (pure)', () => {
  const candidate = fact({ id: 'c', value: 'Paris' });
  it('same triple and near-identical text is a duplicate; more detail is a refinement', () => {
    expect(classifyCandidate(candidate, [existing()], () => 0.99)).toEqual({ kind: 'duplicate', factId: 'old' });
    const detailed = { ...candidate, candidate: { ...candidate.candidate, fact_text: 'S lives in Paris, in the 11th arrondissement, since the spring.' } };
    expect(classifyCandidate(detailed, [existing()], () => 0.6)).toEqual({ kind: 'refinement', factId: 'old' });
  });
  it('a negation ends the stored fact of its triple, unless it only says when the state held ("worked there in 2010")', () => {
    const negation = fact({ id: 'c', value: 'Paris' });
    const ended = { ...negation, candidate: { ...negation.candidate, negated: true } };
    expect(classifyCandidate(ended, [existing()], () => 0.5)).toEqual({ kind: 'ends', factId: 'old' });
    expect(classifyCandidate({ ...ended, candidate: { ...ended.candidate, held_then: true } }, [existing()], () => 0.5)).toEqual({ kind: 'new' });
  });
  it('another value is new (left to the contradiction stage)', () => {
    expect(classifyCandidate(fact({ id: 'c', value: 'Lyon' }), [existing()], () => 0.3)).toEqual({ kind: 'new' });
  });
});

describe('write limit', () => {
  it('keeps at most the limit, updates first, and reports what it dropped', () => {
    const entities: ResolvedEntity[] = Array.from({ length: 40 }, (_, i) => ({ id: `e${i}`, isNew: true, name: `E${i}`, type: 'person', aliases: [] }));
    const inserts = Array.from({ length: 40 }, (_, i) => fact({ id: `f${i}`, subjectId: `e${i}`, singleValued: false }));
    const plan: WritePlan = {
      inserts,
      confirmations: [{ factId: 'x', candidateId: 'y' }],
      refinements: [],
      invalidations: [{ factId: 'old', invalidAt: '2026-01-01T00:00:00.000Z', invalidatedBy: null, candidateId: 'z' }],
      rejections: [],
      reviews: [],
    };
    const limited = applyWriteLimit(entities, plan, 50);
    const writes = limited.plan.invalidations.length + limited.plan.confirmations.length + limited.plan.inserts.length + limited.entities.length;
    expect(writes).toBeLessThanOrEqual(50);
    expect(limited.plan.invalidations).toHaveLength(1);
    expect(limited.plan.inserts).toHaveLength(24);
    expect(limited.dropped).toEqual({ entities: 16, facts: 16, updates: 0 });
    for (const f of limited.plan.inserts) expect(limited.entities.map((e) => e.id)).toContain(f.subjectId);
  });
});
