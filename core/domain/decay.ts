import type { DecayClass } from './types.js';

const DAY_MS = 86_400_000;

/** Half-life in days per decay class; `null` never fades. */
export const HALF_LIFE_DAYS: Record<DecayClass, number | null> = {
  permanent: null,
  slow_decay: 180,
  fast_decay: 21,
};

/** Whole and fractional days from `from` to `now`; never negative (a confirmation "in the future" counts as now). */
export function daysSince(now: Date, from: Date): number {
  return Math.max(0, (now.getTime() - from.getTime()) / DAY_MS);
}

/** confidence × 0.5^(days since last confirmation / half-life); permanent facts keep their confidence. */
export function effectiveConfidence(confidence: number, decayClass: DecayClass, lastConfirmedAt: Date, now: Date): number {
  const halfLife = HALF_LIFE_DAYS[decayClass];
  if (halfLife === null) return confidence;
  return confidence * Math.pow(0.5, daysSince(now, lastConfirmedAt) / halfLife);
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
}

/** Human freshness of a confirmation, e.g. "confirmed 3 days ago", for prompts and the KG browser. */
export function freshness(now: Date, lastConfirmedAt: Date): string {
  const ms = Math.max(0, now.getTime() - lastConfirmedAt.getTime());
  const minutes = Math.floor(ms / 60_000);
  const hours = Math.floor(ms / 3_600_000);
  const days = Math.floor(ms / DAY_MS);
  if (minutes < 1) return 'confirmed just now';
  if (hours < 1) return `confirmed ${plural(minutes, 'minute')}`;
  if (days < 1) return `confirmed ${plural(hours, 'hour')}`;
  if (days === 1) return 'confirmed yesterday';
  if (days < 14) return `confirmed ${plural(days, 'day')}`;
  if (days < 60) return `confirmed ${plural(Math.floor(days / 7), 'week')}`;
  if (days < 365) return `confirmed ${plural(Math.floor(days / 30), 'month')}`;
  return `confirmed ${plural(Math.floor(days / 365), 'year')}`;
}
