/**
 * A persistent task's schedule: validation and the next burst's time. Pure
 * (times are arguments). Not workflow-safe (cron-parser); the workflow reaches
 * it through the `planTaskBurst` activity.
 */
import { CronExpressionParser } from 'cron-parser';
import type { TaskSchedule } from './contracts.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const EVERY_PATTERN = /^([1-9][0-9]{0,5})(s|m|h|d)$/;
export const MIN_EVERY_MS = 1_000;
export const MAX_EVERY_MS = 366 * UNIT_MS.d;

/** `30s`, `15m`, `1h`, `1d` in milliseconds; null when it is not such a duration or outside 1 s … 366 d. */
export function parseEvery(every: string): number | null {
  const match = EVERY_PATTERN.exec(every);
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms >= MIN_EVERY_MS && ms <= MAX_EVERY_MS ? ms : null;
}

/** Why a cron expression is refused, or null when it is a valid five-field expression. */
export function cronProblem(cron: string): string | null {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return `must have five fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  // `H` picks a random minute per parse: bursts would move between plans.
  if (/(^|[\s,])h/i.test(cron)) return 'hashed values (H) are not supported';
  try {
    CronExpressionParser.parse(cron, { tz: 'UTC', strict: false });
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Why a schedule is refused (with the offending field), or null when valid. */
export function scheduleProblem(schedule: TaskSchedule): { field: 'every' | 'cron'; message: string } | null {
  if ('every' in schedule) {
    return parseEvery(schedule.every) === null
      ? { field: 'every', message: 'must be a duration such as 30s, 15m, 1h or 1d, between 1s and 366d' }
      : null;
  }
  const problem = cronProblem(schedule.cron);
  return problem ? { field: 'cron', message: problem } : null;
}

/**
 * The next burst's time, strictly after both `after` (the last burst's
 * scheduled time, or the creation time) and `now`. An interval keeps its
 * cadence from `after` and skips the times missed while paused or late; a cron
 * expression is read in UTC.
 */
export function nextBurstAt(schedule: TaskSchedule, after: Date, now: Date): Date {
  if ('every' in schedule) {
    const every = parseEvery(schedule.every);
    if (every === null) throw new Error(`invalid interval ${JSON.stringify(schedule.every)}`);
    const behind = now.getTime() - after.getTime();
    const steps = behind < 0 ? 1 : Math.floor(behind / every) + 1;
    return new Date(after.getTime() + steps * every);
  }
  const from = after.getTime() > now.getTime() ? after : now;
  return CronExpressionParser.parse(schedule.cron, { tz: 'UTC', currentDate: from }).next().toDate();
}
