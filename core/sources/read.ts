import { calendarDocument, readCalendarContent } from './calendar.js';
import type { ContentType } from './contentType.js';
import type { SourceDocument } from './document.js';
import { emailDocument, parseEmail } from './email.js';
import { jsonDocument, readJsonContent } from './json.js';

/**
 * Reads an episode's stored content as its type says. Pure but for parsing:
 * the same content always gives the same document, so every stage (and every
 * retry) may read it again instead of carrying it through workflow history.
 */
export async function readSource(contentType: Exclude<ContentType, 'text'>, content: string): Promise<SourceDocument> {
  switch (contentType) {
    case 'email':
      return emailDocument(await parseEmail(content));
    case 'calendar_event':
      return calendarDocument(readCalendarContent(content));
    case 'json':
      return jsonDocument(readJsonContent(content));
  }
}
