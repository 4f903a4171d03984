import { z } from 'zod';
import { calendarObjectSchema, eventsFromIcs, isIcs, MAX_EVENTS_PER_EPISODE } from './calendar.js';
import type { ContentType } from './contentType.js';
import { structuredSchemaFor } from './json.js';

/**
 * Largest stored content per type: prose as before; a raw message carries
 * headers and MIME parts around its text. A triple batch's stage outputs
 * travel through workflow history (Temporal refuses payloads over 2 MB, and a
 * thousand triples already make ~1 MB of write plan), so its text is capped too.
 */
export const MAX_SOURCE_BYTES: Record<ContentType, number> = {
  text: 100_000,
  email: 1_000_000,
  calendar_event: 200_000,
  json: 150_000,
};

function textChecks(max: number) {
  return z
    .string()
    .refine((s) => s.trim().length > 0, 'must not be empty')
    .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters')
    .refine((s) => Buffer.byteLength(s, 'utf8') <= max, `must be at most ${max} bytes`);
}

// The header block (before the first empty line) names a sender.
const HAS_FROM_HEADER = /^(?:[^\r\n]+\r?\n)*?From:[ \t]*\S/im;
const emailSchema = textChecks(MAX_SOURCE_BYTES.email).refine((s) => HAS_FROM_HEADER.test(s.split(/\r?\n\r?\n/)[0] ?? ''), {
  message: 'must be a raw RFC 822 message whose headers include From:',
});

const icsSchema = textChecks(MAX_SOURCE_BYTES.calendar_event).superRefine((s, ctx) => {
  if (!isIcs(s)) {
    ctx.addIssue({ code: 'custom', message: 'must be iCalendar text (BEGIN:VCALENDAR) or an event object {title, start, ...}' });
    return;
  }
  let count = 0;
  try {
    count = eventsFromIcs(s).length;
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `not valid iCalendar: ${(err as Error).message}` });
    return;
  }
  if (count === 0) ctx.addIssue({ code: 'custom', message: 'holds no VEVENT with a SUMMARY and a DTSTART' });
  if (count > MAX_EVENTS_PER_EPISODE) ctx.addIssue({ code: 'custom', message: `at most ${MAX_EVENTS_PER_EPISODE} events per memory` });
});

/** The content's issues for its type, paths relative to `content` (empty when valid). */
export function sourceContentIssues(contentType: ContentType, content: unknown): z.core.$ZodIssue[] {
  if (content !== null && typeof content === 'object' && !Array.isArray(content)) {
    const bytes = storedBytes(content as Record<string, unknown>);
    const max = MAX_SOURCE_BYTES[contentType];
    if (bytes > max) return [{ code: 'custom', path: [], message: `must be at most ${max} bytes as JSON`, input: undefined }];
  }
  const result = (() => {
    switch (contentType) {
      case 'text':
        return textChecks(MAX_SOURCE_BYTES.text).safeParse(content);
      case 'email':
        return emailSchema.safeParse(content);
      case 'calendar_event':
        return typeof content === 'string' ? icsSchema.safeParse(content) : calendarObjectSchema.safeParse(content);
      case 'json': {
        if (typeof content !== 'string') return structuredSchemaFor(content).safeParse(content);
        const checked = textChecks(MAX_SOURCE_BYTES.json).safeParse(content);
        if (!checked.success) return checked;
        let value: unknown;
        try {
          value = JSON.parse(content);
        } catch (err) {
          return z.never({ error: `not valid JSON: ${(err as Error).message}` }).safeParse(content);
        }
        return structuredSchemaFor(value).safeParse(value);
      }
    }
  })();
  return result.success ? [] : result.error.issues;
}

/** The content as stored in episode.content: text as given, an object as its JSON. */
export function storedContent(content: string | Record<string, unknown>): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** Bytes an object content takes once stored (checked against MAX_SOURCE_BYTES). */
export function storedBytes(content: string | Record<string, unknown>): number {
  return Buffer.byteLength(storedContent(content), 'utf8');
}
