import type { ContentType } from './contentType.js';
import { parseEmail, participantName, sentAt } from './email.js';

export interface SourceFields {
  contentType?: ContentType;
  content: string;
  speaker?: string;
  occurredAt?: string;
}

/**
 * Fields of the episode row a source decides at write time: an email's
 * sender is the speaker and its Date header (on the sender's clock) is
 * occurred_at, unless the caller gave them; so reads date, order and
 * attribute it like any other memory. Other types are returned unchanged.
 */
export async function withSourceFields<T extends SourceFields>(memory: T): Promise<T> {
  if (memory.contentType !== 'email') return memory;
  const mail = await parseEmail(memory.content);
  return {
    ...memory,
    speaker: memory.speaker ?? (mail.sender ? participantName(mail.sender).slice(0, 200) : undefined),
    occurredAt: memory.occurredAt ?? sentAt(mail) ?? undefined,
  };
}
