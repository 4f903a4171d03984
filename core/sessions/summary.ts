/**
 * The running summary of a session: what an agent must not lose when old turns
 * leave its context (decisions, named entities, commitments), plus a few notes
 * on what the session is about. Stored and served as text in one fixed layout,
 * so a later fold can read the previous summary back.
 */
import { z } from 'zod';

export const summaryDocSchema = z.object({
  decisions: z.array(z.string()),
  commitments: z.array(z.string()),
  entities: z.array(z.string()),
  notes: z.array(z.string()),
});
export type SummaryDoc = z.infer<typeof summaryDocSchema>;

export interface SummaryTurn {
  turnIndex: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  content: string;
}

/** Bounds that keep a long session's summary prompt-sized: the oldest items go first (their episodes already reached the graph). */
export const SUMMARY_LIMITS: Record<keyof SummaryDoc, number> = { decisions: 40, commitments: 40, entities: 60, notes: 20 };
export const MAX_ITEM_CHARS = 400;

const SECTIONS: Array<[keyof SummaryDoc, string]> = [
  ['decisions', 'Decisions'],
  ['commitments', 'Commitments'],
  ['entities', 'Entities'],
  ['notes', 'Notes'],
];

export const EMPTY_SUMMARY: SummaryDoc = { decisions: [], commitments: [], entities: [], notes: [] };

/** One line, trimmed, bounded. */
export function cleanItem(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_ITEM_CHARS ? line : `${line.slice(0, MAX_ITEM_CHARS - 1)}…`;
}

const itemKey = (item: string) => item.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

function uniqueItems(items: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of items) {
    const item = cleanItem(raw);
    const key = itemKey(item);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}

/** Previous items first, new ones appended; duplicates dropped; each list cut to its limit from the oldest end. */
export function mergeSummaries(previous: SummaryDoc, next: SummaryDoc): SummaryDoc {
  const merge = (k: keyof SummaryDoc) => uniqueItems([...previous[k], ...next[k]]).slice(-SUMMARY_LIMITS[k]);
  return { decisions: merge('decisions'), commitments: merge('commitments'), entities: merge('entities'), notes: merge('notes') };
}

/** What `next` holds that `previous` did not: the content a fold adds (written as an episode). */
export function summaryAdditions(previous: SummaryDoc, next: SummaryDoc): SummaryDoc {
  const added = (k: keyof SummaryDoc) => {
    const known = new Set(previous[k].map(itemKey));
    return uniqueItems(next[k]).filter((item) => !known.has(itemKey(item)));
  };
  return { decisions: added('decisions'), commitments: added('commitments'), entities: added('entities'), notes: added('notes') };
}

export function isEmptySummary(doc: SummaryDoc): boolean {
  return SECTIONS.every(([k]) => doc[k].length === 0);
}

export function renderSummary(doc: SummaryDoc): string {
  return SECTIONS.filter(([k]) => doc[k].length > 0)
    .map(([k, title]) => `${title}:\n${doc[k].map((item) => `- ${cleanItem(item)}`).join('\n')}`)
    .join('\n');
}

/** Reads back a summary written by renderSummary; text in any other layout becomes notes, so nothing is dropped. */
export function parseSummary(text: string | null): SummaryDoc {
  const doc: SummaryDoc = { decisions: [], commitments: [], entities: [], notes: [] };
  if (!text) return doc;
  const byTitle = new Map(SECTIONS.map(([k, title]) => [`${title}:`, k]));
  let section: keyof SummaryDoc = 'notes';
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const heading = byTitle.get(trimmed);
    if (heading) {
      section = heading;
      continue;
    }
    doc[section].push(cleanItem(trimmed.startsWith('- ') ? trimmed.slice(2) : trimmed));
  }
  return doc;
}
