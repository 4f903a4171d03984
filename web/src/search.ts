import type { Api } from './api.js';
import { clear, errorBox, h } from './dom.js';
import { ENTITY_TYPES, type Entity } from './types.js';

export interface SearchInput {
  q?: string;
  type?: string;
}

/** Entity search by name, alias or a near spelling (trigram), with a type filter; lists matches to open. */
export class SearchView {
  readonly element: HTMLElement;
  private readonly results = h('ul', { class: 'results', 'aria-label': 'Matching entities' });
  private readonly query = h('input', { type: 'search', name: 'q', placeholder: 'Name, alias or a near spelling', 'aria-label': 'Search entities' });
  private readonly type = h('select', { name: 'type', 'aria-label': 'Entity type' }, h('option', { value: '' }, 'any type'), ...ENTITY_TYPES.map((t) => h('option', { value: t }, t)));

  constructor(
    private readonly api: Api,
    private readonly onSearch: (input: SearchInput) => void,
    private readonly onOpen: (entity: Entity) => void,
  ) {
    const form = h('form', { class: 'search', role: 'search' }, this.query, this.type, h('button', { type: 'submit' }, 'Search'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.onSearch({ q: this.query.value.trim() || undefined, type: this.type.value || undefined });
    });
    this.element = h('section', { class: 'search-pane' }, form, this.results);
  }

  async run(input: SearchInput): Promise<void> {
    this.query.value = input.q ?? '';
    this.type.value = input.type ?? '';
    clear(this.results, h('li', { class: 'muted' }, 'Searching…'));
    try {
      const { entities } = await this.api.get<{ entities: Entity[] }>('/entities', { q: input.q, type: input.type, limit: 30 });
      if (!entities.length) return clear(this.results, h('li', { class: 'muted' }, 'No entity matches.'));
      clear(
        this.results,
        ...entities.map((e) =>
          h(
            'li',
            {},
            h(
              'button',
              { type: 'button', class: 'result', 'data-entity-id': e.id, onclick: () => this.onOpen(e) },
              h('span', { class: `badge type-${e.type}` }, e.type),
              ' ',
              e.name,
              e.aliases.length ? h('span', { class: 'muted' }, ` (${e.aliases.join(', ')})`) : null,
            ),
          ),
        ),
      );
    } catch (err) {
      clear(this.results, h('li', {}, errorBox(err)));
    }
  }
}
