import { z } from 'zod';
import type { EntityCandidate, FactCandidate } from '../extraction/types.js';

/**
 * When a structured source says a fact held (a calendar event's start and
 * end, a JSON triple's valid_from): the temporal stage takes it as stated
 * instead of reading time phrases. Travels on the fact candidate through the
 * workflow (an optional field: candidates of text episodes never carry it).
 */
export const statedValiditySchema = z.object({
  valid_from: z.string().nullable(),
  invalid_at: z.string().nullable(),
});
export type StatedValidity = z.infer<typeof statedValiditySchema>;

export type SourcedFact = FactCandidate & { stated_validity?: StatedValidity };

/** The stated validity a candidate carries, if any. */
export function statedValidityOf(candidate: FactCandidate): StatedValidity | null {
  const parsed = statedValiditySchema.safeParse((candidate as SourcedFact).stated_validity);
  return parsed.success ? parsed.data : null;
}

/**
 * A source document as the extraction stages see it: what its structure
 * states (headers, attendees, triples) and the prose left for the text
 * provider (an email's body, with "I" meaning `speaker`).
 */
export interface SourceDocument {
  entities: EntityCandidate[];
  facts: SourcedFact[];
  /** Prose to extract from with the text provider; empty when the source is fully structured. */
  text: string;
  /** Who "I" is in `text` (the sender of an email). */
  speaker: string | null;
}

/** A sentence for a structured triple: "Alice Martin attended Launch review (2026-03-02)." */
export function tripleText(subject: string, predicateRaw: string, object: string): string {
  return `${subject} ${predicateRaw} ${object}.`;
}
