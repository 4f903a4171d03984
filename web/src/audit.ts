import type { Api } from './api.js';
import { clear, errorBox, h } from './dom.js';
import { when } from './format.js';
import type { AuditEntry } from './types.js';

/** The answer of `GET /v1/audit`. */
interface AuditPage {
  entries: AuditEntry[];
}

/** Facts beyond this many are left out of the trail (one request each). */
const MAX_TARGETS = 40;

/** Who changed what about an entity and its facts, newest first (from `GET /v1/audit?target_id=`). */
export async function loadAuditTrail(api: Api, targetIds: string[]): Promise<AuditEntry[]> {
  const pages = await Promise.all(targetIds.slice(0, MAX_TARGETS).map((id) => api.get<AuditPage>('/audit', { target_id: id, limit: 50 })));
  const seen = new Set<string>();
  return pages
    .flatMap((p) => p.entries)
    .filter((e) => !seen.has(String(e.id)) && seen.add(String(e.id)))
    .sort((a, b) => b.created_at.localeCompare(a.created_at));
}

function summary(entry: AuditEntry): string {
  const after = entry.after as Record<string, unknown> | null;
  if (entry.action === 'fact.corrected' && after) {
    const before = entry.before as Record<string, unknown> | null;
    if (before?.value !== after.value) return `value ${JSON.stringify(before?.value)} → ${JSON.stringify(after.value)}`;
    return `text → ${JSON.stringify(after.fact_text)}`;
  }
  return after && typeof after === 'object' ? Object.keys(after).slice(0, 4).join(', ') : '';
}

export async function renderAuditTrail(api: Api, into: HTMLElement, targetIds: string[]): Promise<void> {
  clear(into, h('p', { class: 'muted' }, 'Loading the audit trail…'));
  try {
    const entries = await loadAuditTrail(api, targetIds);
    if (!entries.length) return clear(into, h('p', { class: 'muted' }, 'No change recorded yet.'));
    clear(
      into,
      h(
        'ol',
        { class: 'audit' },
        ...entries.map((e) =>
          h(
            'li',
            { 'data-action': e.action },
            h('time', { datetime: e.created_at }, when(e.created_at)),
            ' ',
            h('strong', {}, e.action),
            ` on ${e.target_type} by ${e.actor} `,
            h('span', { class: 'muted' }, summary(e)),
          ),
        ),
      ),
    );
  } catch (err) {
    clear(into, errorBox(err));
  }
}
