import type { Api } from './api.js';
import { clear, errorBox, h } from './dom.js';
import { json, when } from './format.js';
import type { Episode, StageRun } from './types.js';

const STATUSES = ['pending', 'extracting', 'extracted', 'failed', 'skipped'];

/** The Temporal UI page of an episode's `ingestEpisode` workflow. */
export function workflowLink(api: Api, episode: Pick<Episode, 'workflow_id'>): string {
  const { temporal_ui_url: ui, temporal_namespace: ns } = api.info;
  // A colon is fine in a path: the link reads like the id (`episode:<id>`).
  return `${ui}/namespaces/${encodeURIComponent(ns)}/workflows/${encodeURIComponent(episode.workflow_id).replace(/%3A/gi, ':')}`;
}

function stageRow(run: StageRun): HTMLElement {
  return h(
    'tr',
    { class: `stage stage-${run.status}`, 'data-stage': run.stage },
    h('td', {}, run.stage),
    h('td', {}, String(run.attempt)),
    h('td', {}, run.status),
    h('td', {}, when(run.started_at)),
    h('td', {}, run.duration_ms === null ? '—' : `${run.duration_ms} ms`),
    h(
      'td',
      {},
      run.error ? h('p', { class: 'error' }, run.error) : null,
      h('details', {}, h('summary', {}, 'input'), h('pre', {}, json(run.input))),
      h('details', {}, h('summary', {}, 'output'), h('pre', {}, json(run.output))),
    ),
  );
}

/** The operator's view of extraction: recent episodes and their status; a failed one's stages and a Retry. */
export class EpisodesView {
  readonly element: HTMLElement;
  private readonly list = h('ul', { class: 'episode-list' });
  private readonly detail = h('section', { class: 'episode-detail', 'aria-label': 'Episode' });
  private readonly status = h('select', { 'aria-label': 'Extraction status' }, h('option', { value: '' }, 'any status'), ...STATUSES.map((s) => h('option', { value: s }, s)));

  constructor(
    private readonly api: Api,
    private readonly onOpen: (episodeId: string) => void,
  ) {
    this.status.addEventListener('change', () => void this.load());
    this.element = h('div', { class: 'episodes-view' }, h('section', { class: 'episode-pane' }, h('label', {}, 'Status ', this.status), this.list), this.detail);
  }

  async load(): Promise<void> {
    clear(this.list, h('li', { class: 'muted' }, 'Loading…'));
    try {
      const { memories } = await this.api.get<{ memories: Episode[] }>('/memories', { status: this.status.value || undefined, limit: 50 });
      if (!memories.length) return clear(this.list, h('li', { class: 'muted' }, 'No episode.'));
      clear(
        this.list,
        ...memories.map((e) =>
          h(
            'li',
            { class: 'episode', 'data-episode-id': e.id, 'data-status': e.status },
            h('button', { type: 'button', class: 'result', onclick: () => this.onOpen(e.id) }, h('span', { class: `badge status-${e.status}` }, e.status), ' ', e.content.slice(0, 120)),
            h('span', { class: 'muted' }, ` ${when(e.occurred_at)}${e.user_id ? ` · ${e.user_id}` : ''} · `),
            h('a', { href: workflowLink(this.api, e), target: '_blank', rel: 'noopener' }, 'workflow'),
          ),
        ),
      );
    } catch (err) {
      clear(this.list, h('li', {}, errorBox(err)));
    }
  }

  async open(episodeId: string): Promise<void> {
    clear(this.detail, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const [episode, { stages }] = await Promise.all([
        this.api.get<Episode>(`/memories/${episodeId}`),
        this.api.get<{ stages: StageRun[] }>(`/memories/${episodeId}/stages`),
      ]);
      const retryStatus = h('span', { class: 'status', role: 'status' });
      const retry =
        episode.status === 'failed'
          ? h(
              'button',
              {
                type: 'button',
                class: 'retry',
                onclick: async () => {
                  try {
                    await this.api.post(`/memories/${episode.id}/retry`);
                    clear(retryStatus, 'Retry started.');
                    void this.load();
                    setTimeout(() => void this.open(episode.id), 1500);
                  } catch (err) {
                    clear(retryStatus, errorBox(err));
                  }
                },
              },
              'Retry',
            )
          : null;
      clear(
        this.detail,
        h('h2', {}, 'Episode ', h('span', { class: `badge status-${episode.status}`, 'data-status': episode.status }, episode.status)),
        h('blockquote', {}, episode.content),
        h('p', { class: 'muted' }, `occurred ${when(episode.occurred_at)} · recorded ${when(episode.recorded_at)}${episode.source ? ` · ${episode.source}` : ''} · `, h('a', { href: workflowLink(this.api, episode), target: '_blank', rel: 'noopener', class: 'workflow-link' }, `${episode.workflow_id} in the Temporal UI`)),
        episode.error ? h('p', { class: 'error' }, episode.error) : null,
        retry,
        retryStatus,
        h('h3', {}, 'Stages'),
        stages.length
          ? h('table', { class: 'stages' }, h('thead', {}, h('tr', {}, ...['stage', 'attempt', 'status', 'started', 'took', 'input · output · error'].map((t) => h('th', {}, t)))), h('tbody', {}, ...stages.map(stageRow)))
          : h('p', { class: 'muted' }, 'No stage ran yet.'),
      );
    } catch (err) {
      clear(this.detail, errorBox(err));
    }
  }
}
