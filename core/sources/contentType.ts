import { z } from 'zod';

/**
 * What an episode's content is (episode.content_type). Pure: imported by
 * workflow-visible contracts, so no parser is imported here.
 * - `text`: prose or a chat turn, extracted by the configured model;
 * - `email`: a raw RFC 822 message (headers and body);
 * - `calendar_event`: an iCalendar VEVENT, or its JSON shape;
 * - `json`: typed triples (or a record with a declared subject), no model.
 */
export const CONTENT_TYPES = ['text', 'email', 'calendar_event', 'json'] as const;
export const contentTypeSchema = z.enum(CONTENT_TYPES);
export type ContentType = z.infer<typeof contentTypeSchema>;

/**
 * Whether the content reads as prose (text, an email): worth embedding
 * sentence by sentence. A calendar file or a triple batch is not; its
 * facts are what search finds.
 */
export function isProse(contentType: ContentType): boolean {
  return contentType === 'text' || contentType === 'email';
}

/** Snapshots recorded before content types existed are text. */
export function contentTypeOf(episode: { contentType?: string | null }): ContentType {
  const parsed = contentTypeSchema.safeParse(episode.contentType ?? 'text');
  return parsed.success ? parsed.data : 'text';
}
