import * as chrono from 'chrono-node';
import { mayNameATime } from '../domain/temporal.js';

/** A span of time the query names, in UTC. */
export interface TimeWindow {
  start: Date;
  end: Date;
  /** The words that named it. */
  text: string;
}

function utc(y: number, m: number, d = 1): Date {
  return new Date(Date.UTC(y, m, d));
}

function dayWindow(date: Date, days: number): { start: Date; end: Date } {
  const start = utc(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  return { start, end: new Date(start.getTime() + days * 86_400_000) };
}

/**
 * The time a query names ("last June", "in 2023", "two weeks ago", "on 8 May,
 * 2023"), relative to `reference` (now or as_of), as a window whose size follows
 * what was said: a day, a week, a month or a year. chrono-node does the
 * parsing; two gaps are filled here: a bare year, and "last <month>", which
 * chrono reads as the coming one. Most questions name no time: they skip the
 * parse (its first call after the process idles costs about a millisecond).
 */
export function parseTimeWindow(query: string, reference: Date): TimeWindow | null {
  const text = query.slice(0, 2000);
  if (!mayNameATime(text)) return null;
  for (const result of chrono.parse(text, reference)) {
    const known = result.start;
    const date = known.date();
    const before = text.slice(Math.max(0, result.index - 6), result.index).toLowerCase();
    const phrase = result.text.toLowerCase();
    let year = date.getUTCFullYear();
    if (known.isCertain('day')) {
      const days = /\bweeks?\b/.test(phrase) ? 7 : 1;
      const w = dayWindow(date, days);
      if (result.end) w.end = dayWindow(result.end.date(), 1).end;
      return { ...w, text: result.text };
    }
    if (known.isCertain('month')) {
      const month = date.getUTCMonth();
      // "last June" said in March 2026 means June 2025.
      if (/last\s*$/.test(before) && !known.isCertain('year') && utc(year, month) > reference) year -= 1;
      return { start: utc(year, month), end: utc(year, month + 1), text: result.text };
    }
    if (known.isCertain('year')) return { start: utc(year, 0), end: utc(year + 1, 0), text: result.text };
  }
  const yearMatch = /\b(19[5-9]\d|20\d\d)\b/.exec(text);
  if (yearMatch) {
    const year = Number(yearMatch[1]);
    return { start: utc(year, 0), end: utc(year + 1, 0), text: yearMatch[0] };
  }
  return null;
}

