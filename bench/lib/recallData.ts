import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * Long-conversation QA datasets of the LoCoMo family, in both layouts:
 * - a folder of one-conversation files (REALTALK): `session_N` turns carry
 *   `clean_text` and their own `date_time` "29.12.2023, 00:51:12"; the key is
 *   the file name without extension;
 * - one JSON array of conversations (LoCoMo's locomo10.json): items carry
 *   `sample_id`, `conversation.session_N` turns with `text`, and
 *   `conversation.session_N_date_time` like "1:56 pm on 8 May, 2023".
 * `events_session_N` and other derived summaries are ignored (they would leak answers).
 */

export interface RecallTurn {
  diaId: string;
  speaker: string;
  text: string;
  occurredAt: string;
}

export interface RecallQuestion {
  index: number;
  question: string;
  category: string;
  evidence: string[];
}

export interface RecallConversation {
  key: string;
  turns: RecallTurn[];
  questions: RecallQuestion[];
}

const turnSchema = z.looseObject({
  speaker: z.string(),
  dia_id: z.string(),
  clean_text: z.string().optional(),
  text: z.string().optional(),
  date_time: z.string().optional(),
});

const qaSchema = z.looseObject({
  question: z.string(),
  evidence: z.array(z.string()).default([]),
  category: z.union([z.number(), z.string()]).optional(),
});

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "29.12.2023, 00:51:12" (REALTALK) or "1:56 pm on 8 May, 2023" (LoCoMo) → ISO instant (UTC), else null. */
export function parseDatasetTime(value: string | undefined): Date | null {
  if (!value) return null;
  const dotted = /^(\d{1,2})\.(\d{1,2})\.(\d{4}),?\s*(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (dotted) {
    const [, d, mo, y, h, mi, s] = dotted;
    return new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +(s ?? 0)));
  }
  const spoken = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(value.trim());
  if (spoken) {
    const [, h, mi, ampm, d, monthName, y] = spoken;
    const month = MONTHS.findIndex((m) => m.startsWith(monthName.toLowerCase().slice(0, 3)));
    if (month < 0) return null;
    const hour = (+h % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0);
    return new Date(Date.UTC(+y, month, +d, hour, +mi));
  }
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : new Date(parsed);
}

/** Evidence ids as written, split when several share one string ("D8:6; D9:17"). */
function evidenceIds(raw: string[]): string[] {
  return raw.flatMap((e) => e.split(/[;,\s]+/)).map((e) => e.trim()).filter(Boolean);
}

function sessionKeys(record: Record<string, unknown>): string[] {
  return Object.keys(record)
    .filter((k) => /^session_\d+$/.test(k) && Array.isArray(record[k]))
    .sort((a, b) => Number(a.split('_')[1]) - Number(b.split('_')[1]));
}

/** One conversation from its session record (REALTALK file body or LoCoMo `conversation`) and its QA list. */
export function parseConversation(key: string, sessions: Record<string, unknown>, qa: unknown): RecallConversation {
  const turns: RecallTurn[] = [];
  for (const sessionKey of sessionKeys(sessions)) {
    const sessionStart = parseDatasetTime(typeof sessions[`${sessionKey}_date_time`] === 'string' ? (sessions[`${sessionKey}_date_time`] as string) : undefined);
    const rawTurns = z.array(turnSchema).parse(sessions[sessionKey]);
    rawTurns.forEach((t, i) => {
      const text = (t.clean_text ?? t.text ?? '').trim();
      if (!text) return;
      // Turns without their own time keep session order one second apart.
      const own = parseDatasetTime(t.date_time);
      const at = own ?? (sessionStart ? new Date(sessionStart.getTime() + i * 1000) : null);
      if (!at) return;
      turns.push({ diaId: t.dia_id, speaker: t.speaker, text, occurredAt: at.toISOString() });
    });
  }
  const questions = z
    .array(qaSchema)
    .parse(qa ?? [])
    .map((q, index) => ({ index, question: q.question, category: String(q.category ?? 'none'), evidence: evidenceIds(q.evidence) }));
  return { key, turns, questions };
}

/** Every conversation of a dataset file or folder, in a stable order. */
export function loadRecallDataset(location: string): RecallConversation[] {
  if (statSync(location).isDirectory()) {
    return readdirSync(location)
      .filter((f) => f.endsWith('.json'))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
      .flatMap((f) => loadRecallDataset(path.join(location, f)));
  }
  const data: unknown = JSON.parse(readFileSync(location, 'utf8'));
  if (Array.isArray(data)) {
    return data.map((item, i) => {
      const rec = z.looseObject({ sample_id: z.union([z.string(), z.number()]).optional(), conversation: z.record(z.string(), z.unknown()), qa: z.unknown() }).parse(item);
      return parseConversation(String(rec.sample_id ?? `conversation-${i}`), rec.conversation, rec.qa);
    });
  }
  const rec = z.record(z.string(), z.unknown()).parse(data);
  const sessions = typeof rec.conversation === 'object' && rec.conversation !== null ? (rec.conversation as Record<string, unknown>) : rec;
  return [parseConversation(path.basename(location, path.extname(location)), sessions, rec.qa)];
}

/** A namespace id for a conversation key (letters, digits, . _ : -). */
export function namespaceFor(key: string): string {
  return `recall.${key.replace(/[^A-Za-z0-9._:-]/g, '_')}`.slice(0, 128);
}
