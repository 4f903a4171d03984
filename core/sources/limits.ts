import { MAX_ATTENDEES, MAX_EVENTS_PER_EPISODE } from './calendar.js';
import type { ContentType } from './contentType.js';
import { MAX_EMAIL_PARTICIPANTS } from './email.js';
import { MAX_JSON_FACTS } from './json.js';

/**
 * Graph writes one episode may make. Prose keeps the cap of DESIGN §4 (a
 * runaway extraction must not flood the graph); a structured source states
 * exactly what it holds, bounded by the API's own limits: each triple or
 * attendee is at most one fact and two entities.
 */
export function graphWriteLimit(contentType: ContentType, proseLimit: number): number {
  switch (contentType) {
    case 'json':
      return 3 * MAX_JSON_FACTS;
    case 'calendar_event':
      // attended + person per attendee, and per event: its entity, organizer, place, scheduled, located_in.
      return MAX_EVENTS_PER_EPISODE * (2 * MAX_ATTENDEES + 5);
    case 'email':
      // The body is prose; the headers add a person, an organization and a works_at per participant.
      return proseLimit + 3 * MAX_EMAIL_PARTICIPANTS;
    default:
      return proseLimit;
  }
}
