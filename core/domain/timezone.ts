/**
 * The writer's time zone: an IANA name ("Europe/Oslo", daylight saving
 * included) or a fixed UTC offset ("+02:00", kept from an `occurred_at` that
 * carried one). Relative dates ("yesterday", "in March") are calendar dates of
 * the writer, not of UTC. Pure: Intl only, no clock.
 */

const FIXED_OFFSET = /^([+-])(\d{2}):?(\d{2})$/;
const IANA_SHAPE = /^(?:UTC|[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){1,2})$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** An IANA time zone name this runtime knows ("Europe/Oslo", "America/New_York", "UTC"). */
export function isIanaTimeZone(name: string): boolean {
  if (!IANA_SHAPE.test(name)) return false;
  try {
    formatterOf(name);
    return true;
  } catch {
    return false;
  }
}

/** The fixed offset an ISO instant was written with ("+02:00"), or null for "Z" / none (nothing said about the writer). */
export function offsetOfIsoInstant(value: string): string | null {
  const m = /([+-]\d{2}):?(\d{2})$/.exec(value.trim());
  if (!m || !/T/.test(value)) return null;
  return `${m[1]}:${m[2]}`;
}

/** Minutes east of UTC that `zone` is at `instant` (0 for null/unknown zones). */
export function offsetMinutes(zone: string | null | undefined, instant: Date): number {
  if (!zone || zone === 'UTC' || zone === 'Z') return 0;
  const fixed = FIXED_OFFSET.exec(zone);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]));
  if (!isIanaTimeZone(zone)) return 0;
  const parts = Object.fromEntries(formatterOf(zone).formatToParts(instant).map((p) => [p.type, p.value]));
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

/** The writer's wall-clock time at `instant`, as a Date whose UTC fields read it. */
export function toWallTime(instant: Date, zone: string | null | undefined): Date {
  return new Date(instant.getTime() + offsetMinutes(zone, instant) * 60_000);
}

/** The instant at which the writer's wall clock shows `wall` (read from its UTC fields); daylight saving included. */
export function fromWallTime(wall: Date, zone: string | null | undefined): Date {
  const guess = wall.getTime() - offsetMinutes(zone, wall) * 60_000;
  return new Date(wall.getTime() - offsetMinutes(zone, new Date(guess)) * 60_000);
}

/** `instant` written in the writer's zone, e.g. "2026-03-01T00:30:00+01:00" (for prompts and people). */
export function formatInZone(instant: Date, zone: string | null | undefined): string {
  const offset = offsetMinutes(zone, instant);
  const wall = new Date(instant.getTime() + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${wall}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
