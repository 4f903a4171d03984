import * as chrono from 'chrono-node';
import { fromWallTime, toWallTime } from './timezone.js';
import type { MemoryKind } from './types.js';

/**
 * World-time resolution of facts (stage 5, DESIGN §4). Time phrases are kept
 * verbatim by extraction ("last month", "since March", "until 2025") and
 * resolved here against the episode's `occurred_at`, in the writer's time zone
 * (IANA name or fixed offset; UTC when none is known), with chrono-node plus
 * the few phrase shapes chrono does not parse ("last May", "in 2023", "for 3
 * years", "last summer"). Calendar arithmetic runs on the writer's wall clock
 * (a Date whose UTC fields read it); a resolved day, month or year starts at
 * the writer's local midnight. Pure: no clock, no I/O.
 */

export type TimeRole = 'start' | 'end' | 'point';
export type TimePrecision = 'day' | 'month' | 'year';

export interface TimeExpression {
  /** Character offset of the phrase in the searched text. */
  index: number;
  /** The phrase verbatim, including a leading "since"/"until"/"in" when present. */
  text: string;
}

export interface ResolvedTime {
  date: Date;
  precision: TimePrecision;
  /** "since X" starts a state, "until X" ends it, anything else dates it. */
  role: TimeRole;
}

const MONTHS: Record<string, number> = {
  january: 1, jan: 1, february: 2, feb: 2, march: 3, mar: 3, april: 4, apr: 4, may: 5, june: 6, jun: 6, july: 7, jul: 7,
  august: 8, aug: 8, september: 9, sep: 9, sept: 9, october: 10, oct: 10, november: 11, nov: 11, december: 12, dec: 12,
};
// Meteorological season starts (northern hemisphere): the only convention without extra context.
const SEASONS: Record<string, number> = { spring: 3, summer: 6, fall: 9, autumn: 9, winter: 12 };
const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  'a few': 3, few: 3, 'a couple': 2, 'a couple of': 2, couple: 2, several: 3,
};

const MONTH_NAMES = Object.keys(MONTHS).join('|');
const NUMBER = `\\d+|a couple of|a couple|a few|several|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve`;
const PREFIXES = 'since|until|till|from|in|on|by|as of|starting from|starting in|starting|before|after|through|during|back in|around';

const RELATIVE_MONTH = new RegExp(`\\b(last|this|next|past|previous|coming)\\s+(${MONTH_NAMES})\\b`, 'gi');
const RELATIVE_SEASON = /\b(last|this|next|past|previous|coming)\s+(spring|summer|fall|autumn|winter)\b/gi;
const PREP_YEAR = new RegExp(`\\b(${PREFIXES})\\s+((?:19|20)\\d{2})\\b(?!\\s*(?:${MONTH_NAMES}|[/.:-]\\d))`, 'gi');
// "from 2019 to 2021", "between March and May", "from June 2020 until March 2022": one phrase with both ends.
const RANGE_END_POINT = `(?:(?:${MONTH_NAMES})\\s+)?(?:19|20)\\d{2}|(?:${MONTH_NAMES})`;
const RANGE_SOURCE = `\\b(?:from|between)\\s+(${RANGE_END_POINT})(?:\\s+(?:to|until|till|through|and)\\s+|\\s*[-–]\\s*)(${RANGE_END_POINT})\\b`;
const RANGE = new RegExp(RANGE_SOURCE, 'gi');
const WHOLE_RANGE = new RegExp(`^${RANGE_SOURCE}$`, 'i');
// "for 3 years", "for the past two months": a duration that reaches back from the reference.
const DURATION = new RegExp(`\\b(?:for|over)\\s+(?:the\\s+(?:last|past)\\s+)?(${NUMBER})\\s+(day|week|month|year)s?\\b`, 'gi');
const TRAILING_PREFIX = new RegExp(`(?:^|[\\s,(])(${PREFIXES})\\s+$`, 'i');
const LEADING_PREFIX = new RegExp(`^(${PREFIXES})\\s+`, 'i');

/** A time phrase's leading preposition ("since", "as of", "in"…), if any, and the rest of it. */
export function splitTimePhrase(phrase: string): { prefix: string | null; core: string } {
  const m = LEADING_PREFIX.exec(phrase);
  return m ? { prefix: m[1], core: phrase.slice(m[0].length) } : { prefix: null, core: phrase };
}

/** Whether `before` ends with a time preposition, so a date can follow it bare. */
export function endsWithTimePreposition(before: string): boolean {
  return TRAILING_PREFIX.test(before);
}
// Cheap gate: skip chrono for text with no digit and none of the words its English parsers start a date
// from (months and weekdays with their short forms, casual days, time units, parts of the day, seasons).
// Words like "last"/"since" alone are not enough: every real phrase also has one of these.
const TIME_HINT = new RegExp(
  `\\d|\\b(?:${MONTH_NAMES}|\\w*days?|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|now|tonight|tomorrow|tmrw?|overmorrow|` +
    `weeks?|weekends?|months?|years?|decades?|quarters?|qtr|ago|hours?|hrs?|minutes?|mins?|seconds?|secs?|` +
    `mornings?|afternoons?|evenings?|nights?|noon|midnight|spring|summer|fall|autumn|winter)\\b`,
  'i',
);

/** Whether `text` may name a time at all: false means chrono would find nothing worth keeping in it. */
export function mayNameATime(text: string): boolean {
  return TIME_HINT.test(text);
}

// Deictic phrases that point after the telling: "tomorrow", "next week", "in 3 days", "on Monday", "this Friday".
// A bare or plural weekday ("Friday", "on Mondays") is left out: "every Friday" reaches here as "Friday", a habit.
const AHEAD = new RegExp(
  `\\b(?:tomorrow|tmrw?|tonight|overmorrow|next|coming|upcoming)\\b|^(?:in|within)\\s+(?:${NUMBER})\\s+(?:minute|hour|day|week|month|year)s?\\b|` +
    `^(?:on|this)\\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\\b`,
  'i',
);
const BEHIND = /\b(?:ago|last|yesterday|earlier|previous|past|since|as\s+of|before)\b/i;

/**
 * Whether a time phrase points after the moment it was said, read from its words alone (no reference date):
 * "I fly to Tokyo tomorrow" and "I start at Globex on Monday" are plans, though their verbs are in the present.
 */
export function pointsAhead(phrase: string): boolean {
  return AHEAD.test(phrase.trim()) && !BEHIND.test(phrase);
}

const NON_DATES = /^(?:right\s+)?now$/i;
const CLOCK_ONLY = /^(?:at\s+)?\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)?$/i;

interface Span {
  start: number;
  end: number;
}

function overlaps(a: Span, b: Span): boolean {
  return a.start < b.end && b.start < a.end;
}

function referenceOf(occurredAt: string | Date): Date {
  const d = occurredAt instanceof Date ? occurredAt : new Date(occurredAt);
  if (Number.isNaN(d.getTime())) throw new Error(`invalid reference instant: ${String(occurredAt)}`);
  return d;
}

function chronoParse(text: string, ref: Date): chrono.ParsedResult[] {
  return chrono.parse(text, { instant: ref, timezone: 'UTC' });
}

function keepChronoResult(r: chrono.ParsedResult): boolean {
  const t = r.text.trim().replace(/[,;:.!?]+$/, '');
  if (NON_DATES.test(t) || CLOCK_ONLY.test(t)) return false;
  // A lone lower-case "may"/"march"/"sun" is usually a verb or noun, not a month (and "mon" is in "c'mon").
  if (/^(?:may|march|sun|sat|wed|mon)$/.test(t)) return false;
  const s = r.start;
  if (s.isCertain('day') || s.isCertain('weekday') || s.isCertain('month') || s.isCertain('year')) return true;
  return /\b(?:today|tonight|yesterday|tomorrow|morning|afternoon|evening|night|week|weekend)\b/i.test(t);
}

/**
 * Time phrases in `text`, in order, non-overlapping, each widened to include a
 * leading "since"/"until"/"in"... so the role survives ("since March").
 */
export function findTimeExpressions(text: string, occurredAt: string | Date = '2000-01-01T00:00:00Z'): TimeExpression[] {
  if (!mayNameATime(text)) return [];
  const spans: Span[] = [];
  const addCustom = (re: RegExp) => {
    for (const m of text.matchAll(re)) {
      const span = { start: m.index ?? 0, end: (m.index ?? 0) + m[0].length };
      if (!spans.some((s) => overlaps(s, span))) spans.push(span);
    }
  };
  addCustom(RANGE);
  addCustom(DURATION);
  addCustom(RELATIVE_MONTH);
  addCustom(RELATIVE_SEASON);
  addCustom(PREP_YEAR);
  for (const r of chronoParse(text, referenceOf(occurredAt))) {
    if (!keepChronoResult(r)) continue;
    const span = { start: r.index, end: r.index + r.text.length };
    if (spans.some((s) => overlaps(s, span))) continue;
    spans.push(span);
  }
  spans.sort((a, b) => a.start - b.start);
  return spans.map((s) => {
    const before = text.slice(0, s.start);
    const prefix = TRAILING_PREFIX.exec(before);
    const start = prefix && !LEADING_PREFIX.test(text.slice(s.start, s.end)) ? s.start - prefix[0].trimStart().replace(/^[,(]/, '').length : s.start;
    return { index: start, text: text.slice(start, s.end).trim().replace(/[\s,;:.!?]+$/, '') };
  });
}

function utc(year: number, month: number, day: number): Date {
  return new Date(Date.UTC(year, month - 1, day));
}

function numberValue(word: string): number | null {
  const w = word.toLowerCase().replace(/\s+/g, ' ');
  if (/^\d+$/.test(w)) return Number(w);
  return NUMBER_WORDS[w] ?? null;
}

function minusUnits(ref: Date, n: number, unit: string): Date {
  const d = utc(ref.getUTCFullYear(), ref.getUTCMonth() + 1, ref.getUTCDate());
  if (unit === 'day') d.setUTCDate(d.getUTCDate() - n);
  else if (unit === 'week') d.setUTCDate(d.getUTCDate() - 7 * n);
  else if (unit === 'month') d.setUTCMonth(d.getUTCMonth() - n);
  else d.setUTCFullYear(d.getUTCFullYear() - n);
  return d;
}

/** The occurrence of `month` (1–12) that "last/this/next <month>" names, relative to the reference month. */
function relativeMonthYear(which: string, month: number, ref: Date): number {
  const refYear = ref.getUTCFullYear();
  const refMonth = ref.getUTCMonth() + 1;
  switch (which) {
    case 'last':
    case 'past':
    case 'previous':
      // The most recent such month strictly before the reference month.
      return month < refMonth ? refYear : refYear - 1;
    case 'next':
    case 'coming':
      return month > refMonth ? refYear : refYear + 1;
    default:
      return refYear;
  }
}

function roleOf(prefix: string | undefined): TimeRole {
  switch ((prefix ?? '').toLowerCase()) {
    case 'since':
    case 'from':
    case 'as of':
    case 'starting':
    case 'starting from':
    case 'starting in':
    case 'after':
      return 'start';
    case 'until':
    case 'till':
    case 'through':
    case 'before':
      return 'end';
    default:
      return 'point';
  }
}

function resolveCustom(core: string, ref: Date): Omit<ResolvedTime, 'role'> | null {
  const c = core.trim();
  let m = new RegExp(`^(?:for|over)\\s+(?:the\\s+(?:last|past)\\s+)?(${NUMBER})\\s+(day|week|month|year)s?$`, 'i').exec(c);
  if (m) {
    const n = numberValue(m[1]);
    return n === null ? null : { date: minusUnits(ref, n, m[2].toLowerCase()), precision: 'day' };
  }
  m = new RegExp(`^(last|this|next|past|previous|coming)\\s+(${MONTH_NAMES})$`, 'i').exec(c);
  if (m) {
    const month = MONTHS[m[2].toLowerCase()];
    return { date: utc(relativeMonthYear(m[1].toLowerCase(), month, ref), month, 1), precision: 'month' };
  }
  m = /^(last|this|next|past|previous|coming)\s+(spring|summer|fall|autumn|winter)$/i.exec(c);
  if (m) {
    const month = SEASONS[m[2].toLowerCase()];
    const which = m[1].toLowerCase();
    const refYear = ref.getUTCFullYear();
    const refMonth = ref.getUTCMonth() + 1;
    // The season containing the reference (winter spans the new year).
    const currentStartYear = month === 12 && refMonth < 3 ? refYear - 1 : refYear;
    const inCurrent = month === 12 ? refMonth === 12 || refMonth < 3 : refMonth >= month && refMonth < month + 3;
    let year: number;
    if (which === 'this') year = inCurrent ? currentStartYear : refYear;
    else if (which === 'next' || which === 'coming') year = utc(refYear, month, 1) > ref ? refYear : refYear + 1;
    else year = inCurrent ? currentStartYear - 1 : utc(refYear, month, 1) < ref ? refYear : refYear - 1;
    return { date: utc(year, month, 1), precision: 'month' };
  }
  m = /^((?:19|20)\d{2})$/.exec(c);
  if (m) return { date: utc(Number(m[1]), 1, 1), precision: 'year' };
  return null;
}

function resolveWithChrono(core: string, ref: Date, role: TimeRole): Omit<ResolvedTime, 'role'> | null {
  const r = chronoParse(core, ref).find(keepChronoResult);
  if (!r) return null;
  const s = r.start;
  const year = s.get('year') ?? ref.getUTCFullYear();
  const month = s.get('month') ?? ref.getUTCMonth() + 1;
  const day = s.get('day') ?? ref.getUTCDate();
  let date: Date;
  let precision: TimePrecision;
  if (s.isCertain('day') || s.isCertain('weekday') || /\bago\b/i.test(r.text)) {
    // Relative offsets ("3 years ago") keep the day they land on.
    date = utc(year, month, day);
    precision = 'day';
  } else if (s.isCertain('month')) {
    // "last month", "since March": the day is not known, so the month starts on the 1st.
    date = utc(year, month, 1);
    precision = 'month';
  } else if (s.isCertain('year')) {
    date = utc(year, 1, 1);
    precision = 'year';
  } else {
    date = utc(year, month, day);
    precision = 'day';
  }
  // "since March" said in February means last March: a start phrase points to the past.
  if (role === 'start' && !s.isCertain('year') && date > ref) date = utc(date.getUTCFullYear() - 1, date.getUTCMonth() + 1, date.getUTCDate());
  return { date, precision };
}

/** A phrase without surrounding space and trailing punctuation ("last May." → "last May"). */
function barePhrase(phrase: string): string {
  return phrase.trim().replace(/[.,;:!?]+$/, '');
}

/**
 * Resolve one verbatim time phrase against the reference instant, on the
 * calendar of `timezone` (IANA name or "+02:00"; UTC when absent): "yesterday"
 * written at 00:30 in Oslo is the Oslo day before, starting at Oslo midnight.
 * Null when it names no time.
 */
export function resolveTimePhrase(phrase: string, occurredAt: string | Date, timezone?: string | null): ResolvedTime | null {
  const ref = toWallTime(referenceOf(occurredAt), timezone);
  const trimmed = barePhrase(phrase);
  const prefix = LEADING_PREFIX.exec(trimmed);
  // "for 3 years" reaches back from now: the state started then.
  const role = /^(?:for|over)\b/i.test(trimmed) ? 'start' : roleOf(prefix?.[1]);
  const core = prefix ? trimmed.slice(prefix[0].length) : trimmed;
  const resolved = resolveCustom(trimmed, ref) ?? resolveCustom(core, ref) ?? resolveWithChrono(trimmed, ref, role) ?? resolveWithChrono(core, ref, role);
  return resolved ? { ...resolved, date: fromWallTime(resolved.date, timezone), role } : null;
}

/**
 * The end of the period a phrase names, as a whole ("to 2021" runs through 2021, "to May" through May), on the
 * writer's wall clock: in Oslo, May ends at local midnight of June 1st. `years` more for an end that wrapped.
 */
function endOfPeriod(t: ResolvedTime, timezone: string | null | undefined, years = 0): Date {
  const d = toWallTime(t.date, timezone);
  if (t.precision === 'year') d.setUTCFullYear(d.getUTCFullYear() + 1);
  else if (t.precision === 'month') d.setUTCMonth(d.getUTCMonth() + 1);
  else d.setUTCDate(d.getUTCDate() + 1);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return fromWallTime(d, timezone);
}

/**
 * Both ends of a range phrase ("from 2019 to 2021", "between March and May"):
 * from the start of the first period to the end of the second, which is
 * inclusive as people say it ("worked there from 2019 to 2021" includes 2021).
 * An end without its year that would come before the start is the next one
 * ("from November to February"). Null for any other phrase.
 */
export function resolveTimeRange(phrase: string, occurredAt: string | Date, timezone?: string | null): { start: Date; end: Date } | null {
  const m = WHOLE_RANGE.exec(barePhrase(phrase));
  if (!m) return null;
  const start = resolveTimePhrase(`from ${m[1]}`, occurredAt, timezone);
  const end = resolveTimePhrase(`until ${m[2]}`, occurredAt, timezone);
  if (!start || !end) return null;
  let endAt = endOfPeriod(end, timezone);
  if (endAt <= start.date && !/\d/.test(m[2])) endAt = endOfPeriod(end, timezone, 1);
  return endAt > start.date ? { start: start.date, end: endAt } : null;
}

/** A phrase that says how long something lasted ("for 3 years"), not when. */
const DURATION_START = /^(?:for|over)\b/i;

export interface FactTimeInput {
  negated: boolean;
  /** A negated fact whose time phrase dates when the state held ("worked at Acme in 2010"), not when it ended. */
  held_then?: boolean | null;
  time_expression: string | null;
  memory_kind: MemoryKind;
}

export interface FactTimes {
  valid_from: string | null;
  invalid_at: string | null;
}

function isoOrNull(value: string | null | undefined): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/**
 * World-time validity of one fact. Asserted facts start at the phrase (or at
 * `occurredAt` when there is none); "until X" ends them; negated facts ("left X
 * last May") end at the phrase (or at `occurredAt`); a range ("from 2019 to
 * 2021") gives both ends, asserted or negated. `override`
 * (t_valid_override) is the caller's statement of when it became true and wins
 * over the text: for a negated fact it is the moment the relation ended.
 * Phrases resolve on the calendar of `timezone` (see `resolveTimePhrase`).
 * A negated fact marked `held_then` ("worked at Acme in 2010") held within the
 * period its phrase names, ended by the telling at the latest.
 */
export function resolveFactTimes(fact: FactTimeInput, occurredAt: string, override?: string | null, timezone?: string | null): FactTimes {
  const ref = referenceOf(occurredAt);
  const refIso = ref.toISOString();
  const overrideIso = isoOrNull(override);
  const range = fact.time_expression && fact.memory_kind !== 'episode' ? resolveTimeRange(fact.time_expression, ref, timezone) : null;
  if (range) {
    // "worked at Initech from 2019 to 2021": held then, whether said as a past state or as a negation.
    return fact.negated
      ? { valid_from: range.start.toISOString(), invalid_at: overrideIso ?? range.end.toISOString() }
      : { valid_from: overrideIso ?? range.start.toISOString(), invalid_at: range.end.toISOString() };
  }
  const resolved = fact.time_expression ? resolveTimePhrase(fact.time_expression, ref, timezone) : null;
  if (fact.negated && fact.held_then && resolved?.role === 'point' && resolved.date < ref && !DURATION_START.test(fact.time_expression ?? '')) {
    // "worked at Acme in 2010": it held within that period and is over by the telling; when in it, the phrase does not say.
    const end = endOfPeriod(resolved, timezone);
    return { valid_from: resolved.date.toISOString(), invalid_at: overrideIso ?? (end < ref ? end : ref).toISOString() };
  }
  if (fact.negated && fact.held_then && resolved?.role === 'start' && resolved.date < ref && !DURATION_START.test(fact.time_expression ?? '')) {
    // "lived in Paris after 2010": it held from then and is over by the telling; when it ended, the phrase does not say.
    return { valid_from: resolved.date.toISOString(), invalid_at: overrideIso ?? refIso };
  }
  if (fact.negated) {
    // "worked there for 3 years" says how long it lasted, not when it ended.
    const end = resolved && !DURATION_START.test(fact.time_expression ?? '') ? resolved.date.toISOString() : refIso;
    return { valid_from: null, invalid_at: overrideIso ?? end };
  }
  if (resolved?.role === 'end' && fact.memory_kind !== 'episode') {
    // "until 2025": ends then; it started no later than now, unless the end is already past.
    const validFrom = overrideIso ?? (resolved.date > ref ? refIso : null);
    return { valid_from: validFrom, invalid_at: resolved.date.toISOString() };
  }
  return { valid_from: overrideIso ?? resolved?.date.toISOString() ?? refIso, invalid_at: null };
}
