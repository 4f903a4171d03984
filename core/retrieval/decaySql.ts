import { HALF_LIFE_DAYS } from '../domain/decay.js';

/**
 * SQL twin of `effectiveConfidence` (core/domain/decay.ts) so lists can be
 * ordered by it inside PostgreSQL; `at` is a timestamptz placeholder. In
 * double precision: EXTRACT returns numeric, and numeric power() cost ~20 µs
 * a row, the bulk of a user's fact query; `date_part` gives the epoch as a
 * double at once (EXTRACT's numeric cast back took half of a 100,000-row scan's time).
 */
export function effectiveConfidenceSql(a: string, at: string): string {
  const days = `GREATEST(0, date_part('epoch', ${at} - ${a}.last_confirmed_at) / 86400)`;
  const cases = Object.entries(HALF_LIFE_DAYS)
    .map(([cls, halfLife]) => `WHEN '${cls}' THEN ${halfLife === null ? '1' : `power(0.5::float8, ${days} / ${halfLife})`}`)
    .join(' ');
  return `(${a}.confidence * CASE ${a}.decay_class ${cases} ELSE 1 END)`;
}
