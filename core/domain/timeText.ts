import { escapeRegExp } from '../text/regex.js';
import { endsWithTimePreposition, resolveTimePhrase, resolveTimeRange, splitTimePhrase } from './temporal.js';
import { toWallTime } from './timezone.js';

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
// A phrase with its year is already absolute ("in May 2024", "until 2021"); a duration ("for 3 years") is no date.
const NAMES_A_YEAR = /\b(?:19|20)\d{2}\b/;
const DURATION = /^(?:for|over)\b/i;
const SEASON = /\b(spring|summer|fall|autumn|winter)\b/i;
// The unit a phrase counts in bounds how precisely it may be said: "2 years ago" is a year, not the day
// chrono lands on; "last week" a week.
const UNIT = /\b(decade|year|month|week|weekend)s?\b/i;
// Prepositions that say how a point in time is meant: they give way to the one the precision asks for
// ("on 21 November 2026", "in May 2026"); every other ("since", "until", "by", "as of"…) is kept.
const POINT_PREPOSITION = /^(?:in|on|back in|around|during)$/i;

/**
 * `text` with the time phrase it was dated by said absolutely: "Maya left
 * Acme Corp last month." written in June 2026 → "Maya left Acme Corp in May
 * 2026." A fact is read long after it was written, by someone who does not
 * know when that was, so "last month" or "tomorrow" in it would mislead; the
 * raw episode keeps the words as said. The phrase resolves as the fact's times
 * do (`resolveTimePhrase`, on the writer's calendar). Phrases with a year,
 * ranges and durations are left as said, and so is a text that does not
 * contain the phrase.
 */
export function anchorTimeInText(text: string, phrase: string | null, occurredAt: string, timezone?: string | null): string {
  const bare = phrase?.trim().replace(/[.,;:!?]+$/, '');
  if (!bare || NAMES_A_YEAR.test(bare) || DURATION.test(bare) || resolveTimeRange(bare, occurredAt, timezone)) return text;
  const resolved = resolveTimePhrase(bare, occurredAt, timezone);
  if (!resolved) return text;
  const { prefix, core } = splitTimePhrase(bare);
  const kept = prefix && !POINT_PREPOSITION.test(prefix) ? prefix : null;
  const absolute = sayAbsolutely(resolved.date, resolved.precision, core, timezone);
  // The whole phrase where the text has it; else its core, after whatever preposition the text put before it.
  const whole = findWords(text, bare);
  if (whole && kept) return splice(text, whole, `${kept} ${absolute.text}`);
  const at = whole ?? (core === bare ? null : findWords(text, core));
  if (!at) return text;
  const preposition = endsWithTimePreposition(text.slice(0, at.index)) ? '' : `${pointPreposition(absolute)} `;
  return splice(text, at, `${preposition}${absolute.text}`);
}

interface Absolute {
  text: string;
  isDay: boolean;
}

function sayAbsolutely(date: Date, precision: 'day' | 'month' | 'year', core: string, timezone: string | null | undefined): Absolute {
  const wall = toWallTime(date, timezone);
  const year = wall.getUTCFullYear();
  const month = MONTH_NAMES[wall.getUTCMonth()];
  const season = SEASON.exec(core);
  if (season) return { text: `${season[1].toLowerCase()} ${year}`, isDay: false };
  const unit = UNIT.exec(core)?.[1].toLowerCase();
  if (precision === 'year' || unit === 'year' || unit === 'decade') return { text: String(year), isDay: false };
  if (precision === 'month' || unit === 'month') return { text: `${month} ${year}`, isDay: false };
  const day = `${wall.getUTCDate()} ${month} ${year}`;
  return unit ? { text: `the week of ${day}`, isDay: false } : { text: day, isDay: true };
}

const pointPreposition = (absolute: Absolute) => (absolute.isDay ? 'on' : 'in');

/** The first whole-word, case-insensitive occurrence of `words` in `text`. */
function findWords(text: string, words: string): { index: number; length: number } | null {
  const match = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(words)}(?![\\p{L}\\p{N}])`, 'iu').exec(text);
  return match ? { index: match.index, length: match[0].length } : null;
}

function splice(text: string, at: { index: number; length: number }, replacement: string): string {
  // A sentence that opened with the phrase ("Yesterday Maya moved…") opens with its replacement.
  const said = at.index === 0 ? replacement.charAt(0).toUpperCase() + replacement.slice(1) : replacement;
  return text.slice(0, at.index) + said + text.slice(at.index + at.length);
}
