import { Api, ApiError, loadSession } from './api.js';
import { clear, errorBox, h } from './dom.js';
import { EntityPanel } from './entityPanel.js';
import { EpisodesView } from './episodes.js';
import { GraphPane } from './graphPane.js';
import { renderLogin } from './login.js';
import { ReviewsView } from './reviews.js';
import { SearchView } from './search.js';
import { readState, writeState, type PageState } from './state.js';
import type { SessionInfo } from './types.js';

/** The page once logged in: one namespace at a time, three views, all state in the URL. */
class App {
  private state: PageState;
  private readonly api: Api;
  private readonly main = h('main', {});
  private readonly search: SearchView;
  private readonly graph: GraphPane;
  private readonly panel: EntityPanel;
  private readonly episodes: EpisodesView;
  private readonly reviews: ReviewsView;

  constructor(
    private readonly root: HTMLElement,
    session: SessionInfo,
  ) {
    this.state = readState(location.search);
    this.api = new Api(session, this.state.namespace ?? session.default_namespace);
    this.search = new SearchView(this.api, (input) => this.go({ q: input.q, type: input.type }), (entity) => this.go({ entity: entity.id }));
    this.graph = new GraphPane(this.api, (entity) => this.go({ entity }), (depth) => this.go({ depth }));
    this.panel = new EntityPanel(this.api);
    this.episodes = new EpisodesView(this.api, (episode) => this.go({ episode }));
    this.reviews = new ReviewsView(this.api);
    window.addEventListener('popstate', () => {
      this.state = readState(location.search);
      this.render();
    });
  }

  /** Moves to a new state (a new history entry) and shows it. */
  private go(change: Partial<PageState>): void {
    this.state = { ...this.state, ...change };
    history.pushState(null, '', writeState(this.state));
    this.render();
  }

  private namespaceControl(): HTMLElement {
    const choices = this.api.info.namespaces;
    const control = choices
      ? h('select', { 'aria-label': 'Namespace' }, ...choices.map((ns) => h('option', { value: ns, selected: ns === this.api.namespace }, ns)))
      : h('input', { 'aria-label': 'Namespace', value: this.api.namespace, size: 14 });
    control.addEventListener('change', () => {
      this.api.namespace = control.value.trim() || this.api.info.default_namespace;
      this.go({ namespace: this.api.namespace, entity: undefined, episode: undefined, q: undefined });
    });
    return h('label', { class: 'namespace' }, 'Namespace ', control);
  }

  private header(): HTMLElement {
    const tab = (view: PageState['view'], label: string) =>
      h('a', { href: writeState({ ...this.state, view }), class: view === this.state.view ? 'tab active' : 'tab', 'aria-current': view === this.state.view ? 'page' : undefined, onclick: (e: Event) => { e.preventDefault(); this.go({ view }); } }, label);
    const logout = h('button', { type: 'button', class: 'logout' }, 'Log out');
    logout.addEventListener('click', async () => {
      await fetch('/kg/logout', { method: 'POST', credentials: 'same-origin', headers: { 'x-csrf-token': this.api.info.csrf_token } });
      location.reload();
    });
    return h('header', { class: 'top' }, h('h1', {}, 'Mnemo'), h('nav', {}, tab('graph', 'Graph'), tab('episodes', 'Episodes'), tab('reviews', 'Reviews')), this.namespaceControl(), logout);
  }

  render(): void {
    this.api.namespace = this.state.namespace ?? this.api.info.default_namespace;
    clear(this.root, this.header(), this.main);
    if (this.state.view === 'episodes') {
      clear(this.main, this.episodes.element);
      void this.episodes.load();
      if (this.state.episode) void this.episodes.open(this.state.episode);
    } else if (this.state.view === 'reviews') {
      clear(this.main, this.reviews.element);
      void this.reviews.load();
    } else {
      clear(this.main, this.search.element, this.graph.element, this.panel.element);
      if (this.state.q || this.state.type) void this.search.run({ q: this.state.q, type: this.state.type });
      if (this.state.entity) {
        void this.graph.show(this.state.entity, this.state.depth);
        void this.panel.show(this.state.entity);
      }
    }
    this.main.className = `view-${this.state.view}`;
  }
}

async function start(): Promise<void> {
  const root = document.getElementById('app');
  if (!root) return;
  try {
    const session = await loadSession();
    const open = (s: SessionInfo) => new App(root, s).render();
    if (session) open(session);
    else renderLogin(root, open);
  } catch (err) {
    clear(root, errorBox(err instanceof ApiError ? `${err.message} (${err.status})` : err));
  }
}

void start();
