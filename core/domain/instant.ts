import { z } from 'zod';

/**
 * The instants both JavaScript and PostgreSQL write as a plain four-digit
 * year. ISO 8601 reads "0000-01-01T00:00:00Z" as 1 BC, which PostgreSQL's
 * timestamptz input refuses ("date/time field value out of range"), and an
 * offset can carry a valid local time across either end (0001-01-01T00:00+14:00
 * is still year 0 in UTC, 9999-12-31T23:59-12:00 is year 10000): such input
 * answered 500 where it should be a 400 naming the field (found by fuzz-routes).
 */
const EARLIEST_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');
const INSTANT_RANGE_MESSAGE = 'must fall between 0001-01-01 and 9999-12-31 (UTC)';

function withinInstantRange(iso: string): boolean {
  const ms = Date.parse(iso);
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
}

/** An ISO 8601 date-time with an offset that can be stored and read back as it was meant. */
export function storableInstant(formatError?: string) {
  return z.iso.datetime({ offset: true, ...(formatError ? { error: formatError } : {}) }).refine(withinInstantRange, INSTANT_RANGE_MESSAGE);
}

/** An ISO 8601 calendar date (YYYY-MM-DD) from year 0001 on. */
export const storableDate = z.iso.date().refine((d) => !d.startsWith('0000'), 'must be 0001-01-01 or later');
