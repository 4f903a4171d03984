import pg from 'pg';
import { effectiveConfidence } from '../core/domain/decay.js';
import type { DecayClass } from '../core/domain/types.js';
import { effectiveConfidenceSql } from '../core/retrieval/decaySql.js';
import { TEST_PG_ADMIN_URL } from './support/env.js';

const NOW = new Date('2026-06-15T12:00:00Z');

describe('effectiveConfidenceSql (the SQL twin lists are ordered by)', () => {
  const pool = new pg.Pool({ connectionString: TEST_PG_ADMIN_URL, max: 1 });
  afterAll(() => pool.end());

  it('agrees with effectiveConfidence for every decay class, age and confirmation in the future', async () => {
    const cases: Array<[number, DecayClass, number]> = [];
    for (const cls of ['permanent', 'slow_decay', 'fast_decay'] as DecayClass[]) {
      for (const days of [-3, 0, 0.5, 7, 21, 90, 180, 400, 2000]) cases.push([0.8, cls, days]);
    }
    cases.push([0.35, 'fast_decay', 10], [1, 'slow_decay', 33.3]);
    const { rows } = await pool.query<{ value: number }>(
      `SELECT ${effectiveConfidenceSql('f', '$1::timestamptz')} AS value
         FROM unnest($2::float8[], $3::text[], $4::timestamptz[]) WITH ORDINALITY AS f(confidence, decay_class, last_confirmed_at, n)
        ORDER BY f.n`,
      [NOW, cases.map((c) => c[0]), cases.map((c) => c[1]), cases.map((c) => new Date(NOW.getTime() - c[2] * 86_400_000))],
    );
    expect(rows).toHaveLength(cases.length);
    rows.forEach((row, i) => {
      const [confidence, cls, days] = cases[i];
      expect(Number(row.value)).toBeCloseTo(effectiveConfidence(confidence, cls, new Date(NOW.getTime() - days * 86_400_000), NOW), 12);
    });
  });
});
