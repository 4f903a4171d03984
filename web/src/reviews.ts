import type { Api } from './api.js';
import { clear, errorBox, h } from './dom.js';
import { json, when } from './format.js';
import type { Entity, ReviewItem } from './types.js';

/** Decisions an item's kind accepts: a conflict is resolved by keeping one of its facts; the rest are approved or rejected. */
function decisionButtons(api: Api, item: ReviewItem, status: HTMLElement, decided: () => void): HTMLElement[] {
  const decide = (path: string, body?: unknown) => async () => {
    try {
      await api.post(`/reviews/${item.id}/${path}`, body);
      clear(status, 'Decision sent.');
      decided();
    } catch (err) {
      clear(status, errorBox(err));
    }
  };
  if (item.kind === 'conflict') {
    return [
      ...item.fact_ids.map((factId, i) => h('button', { type: 'button', onclick: decide('resolve', { keep_fact_id: factId }), title: factId }, `Keep ${i === 0 ? 'the existing' : 'the new'} fact`)),
      h('button', { type: 'button', onclick: decide('reject') }, 'Reject'),
    ];
  }
  return [
    h('button', { type: 'button', class: 'approve', onclick: decide('approve') }, 'Approve'),
    h('button', { type: 'button', class: 'reject', onclick: decide('reject') }, 'Reject'),
  ];
}

/** Open conflicts, merge proposals and rejected writes waiting for an operator. */
export class ReviewsView {
  readonly element = h('section', { class: 'reviews-view', 'aria-label': 'Review inbox' });

  constructor(private readonly api: Api) {}

  /** The entities an item is about (a merge: survivor first), by name. */
  private entityNames(ids: string[]): HTMLElement {
    const line = h('p', { class: 'review-entities' }, 'Entities: ');
    void Promise.all(ids.map((id) => this.api.get<{ entity: Entity }>(`/entities/${id}`).then((m) => m.entity.name, () => id))).then((names) =>
      line.append(names.join(' ← ')),
    );
    return line;
  }

  async load(): Promise<void> {
    clear(this.element, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const { reviews: items } = await this.api.get<{ reviews: ReviewItem[] }>('/reviews', { status: 'open', limit: 50 });
      if (!items.length) return clear(this.element, h('p', { class: 'muted' }, 'No open review item.'));
      clear(
        this.element,
        h(
          'ul',
          { class: 'review-list' },
          ...items.map((item) => {
            const status = h('span', { class: 'status', role: 'status' });
            return h(
              'li',
              { class: `review kind-${item.kind}`, 'data-review-id': item.id },
              h('h3', {}, h('span', { class: 'badge' }, item.kind.replace('_', ' ')), ' ', item.title),
              h('p', { class: 'muted' }, `opened ${when(item.created_at)}`),
              item.entity_ids.length ? this.entityNames(item.entity_ids) : null,
              h('details', {}, h('summary', {}, 'details'), h('pre', {}, json(item.payload))),
              h('div', { class: 'review-actions' }, ...decisionButtons(this.api, item, status, () => setTimeout(() => void this.load(), 1000))),
              status,
            );
          }),
        ),
      );
    } catch (err) {
      clear(this.element, errorBox(err));
    }
  }
}
