import ical from 'node-ical';
import { z } from 'zod';
import { storableDate, storableInstant } from '../domain/instant.js';
import type { EntityCandidate } from '../extraction/types.js';
import { tripleText, type SourceDocument, type SourcedFact } from './document.js';

/** More VEVENTs than this in one episode is a calendar export, not an event: send them one per memory. */
export const MAX_EVENTS_PER_EPISODE = 10;
/** Attendees read per event (rooms and declined invitees aside): a thousand-person all-hands is not a list of contacts. */
export const MAX_ATTENDEES = 100;

export interface CalendarPerson {
  name: string | null;
  email: string | null;
}

export interface CalendarEvent {
  uid: string | null;
  title: string;
  start: Date;
  end: Date | null;
  /** A date-only event (DTSTART;VALUE=DATE): its name carries the day as written, not as a UTC instant. */
  allDay: boolean;
  organizer: CalendarPerson | null;
  attendees: CalendarPerson[];
  location: string | null;
}

const instantOrDate = z.union([storableInstant(), storableDate], { error: 'an ISO 8601 instant with offset, or a date (YYYY-MM-DD)' });

/** "Alice Martin <alice@acme.com>", "alice@acme.com", "Alice Martin" or `{name, email}`. */
const personSchema = z.union([
  z.string().trim().min(1).max(320),
  z
    .strictObject({ name: z.string().trim().min(1).max(200).optional(), email: z.email().max(320).optional() })
    .refine((p) => p.name !== undefined || p.email !== undefined, 'give name or email'),
]);

/** The JSON shape of an event, for callers without an .ics. */
export const calendarObjectSchema = z
  .strictObject({
    uid: z.string().trim().min(1).max(500).optional(),
    title: z.string().trim().min(1).max(500),
    start: instantOrDate,
    end: instantOrDate.optional(),
    attendees: z.array(personSchema).max(MAX_ATTENDEES).default([]),
    organizer: personSchema.optional(),
    location: z.string().trim().min(1).max(500).optional(),
  })
  .refine((e) => e.end === undefined || Date.parse(e.end) >= Date.parse(e.start), { message: 'must not be before start', path: ['end'] });
export type CalendarObject = z.infer<typeof calendarObjectSchema>;

function personOf(value: z.infer<typeof personSchema>): CalendarPerson {
  if (typeof value !== 'string') return { name: value.name ?? null, email: value.email?.toLowerCase() ?? null };
  const angle = /^(.*?)\s*<([^<>@\s]+@[^<>\s]+)>$/.exec(value);
  if (angle) return { name: angle[1].replace(/^["']|["']$/g, '').trim() || null, email: angle[2].toLowerCase() };
  return /^[^\s@]+@[^\s@]+$/.test(value) ? { name: null, email: value.toLowerCase() } : { name: value, email: null };
}

export function eventFromObject(o: CalendarObject): CalendarEvent {
  const dateOnly = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s);
  return {
    uid: o.uid ?? null,
    title: o.title,
    start: new Date(o.start),
    end: o.end ? new Date(o.end) : null,
    allDay: dateOnly(o.start),
    organizer: o.organizer ? personOf(o.organizer) : null,
    attendees: o.attendees.map(personOf),
    location: o.location ?? null,
  };
}

type ParamValue = string | { val: string; params?: Record<string, unknown> } | undefined;

function textOf(value: unknown): string | null {
  const v = value as ParamValue;
  const text = typeof v === 'string' ? v : v?.val;
  return text?.trim() || null;
}

function icsPerson(value: ParamValue): CalendarPerson & { declined: boolean; resource: boolean } {
  const raw = typeof value === 'string' ? value : (value?.val ?? '');
  const params = (typeof value === 'string' ? {} : (value?.params ?? {})) as Record<string, unknown>;
  const email = /^mailto:/i.test(raw) ? raw.replace(/^mailto:/i, '').trim().toLowerCase() : null;
  const cn = typeof params.CN === 'string' ? params.CN.replace(/^["']|["']$/g, '').trim() : null;
  const cutype = String(params.CUTYPE ?? '').toUpperCase();
  return {
    name: cn || null,
    email: email || null,
    declined: String(params.PARTSTAT ?? '').toUpperCase() === 'DECLINED',
    resource: cutype === 'ROOM' || cutype === 'RESOURCE',
  };
}

/** The VEVENTs of an iCalendar text (node-ical), declined attendees and rooms left out. */
export function eventsFromIcs(ics: string): CalendarEvent[] {
  const parsed = ical.sync.parseICS(ics);
  const events: CalendarEvent[] = [];
  for (const component of Object.values(parsed)) {
    if (!component || component.type !== 'VEVENT') continue;
    const title = textOf(component.summary);
    const start = component.start;
    if (!title || !(start instanceof Date) || Number.isNaN(start.getTime())) continue;
    const attendees = (Array.isArray(component.attendee) ? component.attendee : component.attendee ? [component.attendee] : [])
      .map((a) => icsPerson(a as ParamValue))
      .filter((a) => !a.declined && !a.resource && (a.name || a.email));
    const organizer = component.organizer ? icsPerson(component.organizer as ParamValue) : null;
    events.push({
      uid: component.uid?.trim() || null,
      title,
      start,
      end: component.end instanceof Date && !Number.isNaN(component.end.getTime()) ? component.end : null,
      allDay: component.datetype === 'date' || start.dateOnly === true,
      organizer: organizer && (organizer.name || organizer.email) ? { name: organizer.name, email: organizer.email } : null,
      attendees: attendees.slice(0, MAX_ATTENDEES).map(({ name, email }) => ({ name, email })),
      location: textOf(component.location),
    });
  }
  return events;
}

/** Whether the content is iCalendar text rather than the JSON shape. */
export function isIcs(content: string): boolean {
  return /^\s*BEGIN:(?:VCALENDAR|VEVENT)\b/i.test(content);
}

/** The events an episode's stored content holds (.ics text, or the JSON shape as stored by the API). */
export function readCalendarContent(content: string): CalendarEvent[] {
  if (isIcs(content)) return eventsFromIcs(content);
  return [eventFromObject(calendarObjectSchema.parse(JSON.parse(content)))];
}

function dayOf(event: CalendarEvent): string {
  // node-ical gives a date-only start as local midnight of the parsing process; the JSON shape as UTC midnight.
  const d = event.start;
  if (event.allDay && !Number.isNaN(d.getTime()) && d.getUTCHours() !== 0) {
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  }
  return d.toISOString().slice(0, 10);
}

/** An event's entity name: its title and day, so a weekly "Team sync" is one event per day, not one for ever. */
export function eventName(event: CalendarEvent): string {
  return `${event.title} (${dayOf(event)})`;
}

function personEntity(p: CalendarPerson): EntityCandidate {
  const name = p.name ?? p.email ?? '';
  return { name, type: 'person', aliases: p.email && p.email !== name ? [p.email] : [] };
}

function relation(subject: string, predicate: string, predicateRaw: string, object: string, family: SourcedFact['family']): SourcedFact {
  return {
    subject,
    predicate,
    predicate_raw: predicateRaw,
    family,
    object,
    value: null,
    fact_text: tripleText(subject, predicateRaw, object),
    memory_kind: 'episode',
    importance: 0.5,
    confidence: 0.9,
    negated: false,
    time_expression: null,
  };
}

/**
 * What events state: an `event` entity each (its UID as an alias, so the same
 * event sent again resolves to it), `attended` for each attendee valid for the
 * event's time, `located_in` its location from its start, `scheduled` for the
 * organizer. Sent again, the same statements are confirmed, not duplicated.
 */
export function calendarDocument(events: CalendarEvent[]): SourceDocument {
  const entities: EntityCandidate[] = [];
  const facts: SourcedFact[] = [];
  for (const event of events) {
    const name = eventName(event);
    const start = event.start.toISOString();
    entities.push({ name, type: 'event', aliases: event.uid ? [event.uid] : [] });
    for (const attendee of event.attendees) {
      const person = personEntity(attendee);
      entities.push(person);
      facts.push({ ...relation(person.name, 'attended', 'attended', name, 'events'), stated_validity: { valid_from: start, invalid_at: event.end?.toISOString() ?? null } });
    }
    if (event.location) {
      entities.push({ name: event.location, type: 'place', aliases: [] });
      facts.push({ ...relation(name, 'located_in', 'takes place in', event.location, 'places'), stated_validity: { valid_from: start, invalid_at: null } });
    }
    if (event.organizer) {
      const organizer = personEntity(event.organizer);
      entities.push(organizer);
      facts.push(relation(organizer.name, 'scheduled', 'scheduled', name, 'events'));
    }
  }
  return { entities, facts, text: '', speaker: events[0]?.organizer ? personEntity(events[0].organizer).name : null };
}
