import type { Api } from './api.js';
import { renderAuditTrail } from './audit.js';
import { clear, errorBox, h } from './dom.js';
import { when } from './format.js';
import { renderFactLine } from './factLine.js';
import { historyChains } from './history.js';
import type { Entity, Fact } from './types.js';

interface EntityMemory {
  entity: Entity;
  facts: Fact[];
}

/** Erasing a user: the operator types the user id again before anything is sent. */
function eraseUserControl(api: Api, userId: string): HTMLElement {
  const area = h('div', { class: 'erase' });
  const start = h('button', { type: 'button', class: 'danger' }, `Erase user “${userId}”…`);
  start.addEventListener('click', () => {
    const typed = h('input', { 'aria-label': 'Type the user id to confirm', placeholder: userId });
    const status = h('span', { class: 'status' });
    const form = h(
      'form',
      { class: 'confirm' },
      h('p', {}, `This removes every episode, fact and entity only ${userId}'s memories support, in namespace ${api.namespace}. Type the user id to confirm.`),
      typed,
      h('button', { type: 'submit', class: 'danger' }, 'Erase for good'),
      h('button', { type: 'button', onclick: () => clear(area, start) }, 'Cancel'),
      status,
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (typed.value !== userId) return clear(status, 'The id does not match.');
      try {
        const accepted = await api.delete<Record<string, unknown>>(`/users/${encodeURIComponent(userId)}`);
        clear(area, h('p', { class: 'notice', role: 'status' }, `Erasure started (${String(accepted.workflow_id ?? accepted.id ?? '')}).`));
      } catch (err) {
        clear(status, errorBox(err));
      }
    });
    clear(area, form);
  });
  area.append(start);
  return area;
}

/**
 * Everything known about one entity: its facts with their history chains
 * (superseded ones greyed), provenance, corrections, and its audit trail.
 */
export class EntityPanel {
  readonly element = h('section', { class: 'entity-panel', 'aria-label': 'Entity' }, h('p', { class: 'muted' }, 'Search and pick an entity.'));

  constructor(private readonly api: Api) {}

  async show(entityId: string): Promise<void> {
    clear(this.element, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const [memory, history] = await Promise.all([
        // Forgotten facts too: the operator sees them marked, and may restore them.
        this.api.get<EntityMemory>(`/entities/${entityId}`, { include_forgotten: true }),
        this.api.get<{ facts: Fact[] }>('/facts', { subject: entityId, include_invalidated: true, include_forgotten: true, limit: 200 }),
      ]);
      this.render(memory, history.facts);
    } catch (err) {
      clear(this.element, errorBox(err));
    }
  }

  private render(memory: EntityMemory, subjectHistory: Fact[]): void {
    const { entity } = memory;
    // Current facts where it is either end, plus the whole history of facts where it is the subject.
    const facts = new Map<string, Fact>();
    for (const f of [...subjectHistory, ...memory.facts]) facts.set(f.id, f);
    const chains = historyChains([...facts.values()], new Date());
    const actions = { api: this.api, changed: () => void this.show(entity.id) };
    const audit = h('div', { class: 'audit-trail' });
    clear(
      this.element,
      h(
        'header',
        {},
        h('h2', {}, entity.name, ' ', h('span', { class: `badge type-${entity.type}` }, entity.type)),
        entity.aliases.length ? h('p', { class: 'muted' }, `Also: ${entity.aliases.join(', ')}`) : null,
        entity.summary ? h('p', {}, entity.summary) : null,
        h('p', { class: 'muted' }, `Sensitivity ${entity.sensitivity} · first seen ${when(entity.first_seen_at)} · last seen ${when(entity.last_seen_at)}`, entity.scope_user ? ` · user ${entity.scope_user}` : ''),
        entity.scope_user ? eraseUserControl(this.api, entity.scope_user) : null,
      ),
      h('h3', {}, `Facts (${facts.size})`),
      chains.length
        ? h(
            'div',
            { class: 'chains' },
            ...chains.map((c) => h('section', { class: 'chain', 'data-predicate': c.predicate }, h('h4', {}, c.predicate.replaceAll('_', ' ')), h('ol', {}, ...c.lines.map((line) => renderFactLine(line, actions))))),
          )
        : h('p', { class: 'muted' }, 'No fact about it.'),
      h('h3', {}, 'Audit trail'),
      audit,
    );
    void renderAuditTrail(this.api, audit, [entity.id, ...facts.keys()]);
  }
}
