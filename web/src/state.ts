/** What the page shows, kept in the query string so a link or a reload opens the same view. */
export interface PageState {
  view: 'graph' | 'episodes' | 'reviews';
  namespace?: string;
  entity?: string;
  depth: number;
  q?: string;
  type?: string;
  episode?: string;
}

const VIEWS = ['graph', 'episodes', 'reviews'] as const;

export function clampDepth(raw: string | number | null | undefined): number {
  const n = Math.trunc(Number(raw));
  return Number.isFinite(n) ? Math.min(3, Math.max(1, n)) : 1;
}

export function readState(search: string): PageState {
  const p = new URLSearchParams(search);
  const view = p.get('view');
  return {
    view: (VIEWS as readonly string[]).includes(view ?? '') ? (view as PageState['view']) : 'graph',
    namespace: p.get('ns') ?? undefined,
    entity: p.get('entity') ?? undefined,
    depth: clampDepth(p.get('depth')),
    q: p.get('q') ?? undefined,
    type: p.get('type') ?? undefined,
    episode: p.get('episode') ?? undefined,
  };
}

export function writeState(state: PageState): string {
  const p = new URLSearchParams();
  if (state.view !== 'graph') p.set('view', state.view);
  if (state.namespace) p.set('ns', state.namespace);
  if (state.q) p.set('q', state.q);
  if (state.type) p.set('type', state.type);
  if (state.entity) p.set('entity', state.entity);
  p.set('depth', String(state.depth));
  if (state.episode) p.set('episode', state.episode);
  return `?${p.toString()}`;
}
