import type { Api } from './api.js';
import { clear, errorBox, h } from './dom.js';
import { GraphView } from './graph.js';
import type { Neighborhood } from './types.js';

/** The neighborhood graph of the selected entity, with its depth (1–3) control. */
export class GraphPane {
  readonly element: HTMLElement;
  private readonly canvas = h('div', { id: 'graph', class: 'graph', 'aria-label': 'Neighborhood graph' });
  private readonly note = h('p', { class: 'muted graph-note' }, 'Pick an entity to see its neighborhood.');
  private readonly depth = h('select', { name: 'depth', 'aria-label': 'Depth' }, ...[1, 2, 3].map((d) => h('option', { value: String(d) }, `depth ${d}`)));
  private readonly view: GraphView;

  constructor(
    private readonly api: Api,
    onSelect: (entityId: string) => void,
    onDepth: (depth: number) => void,
  ) {
    this.view = new GraphView(this.canvas, onSelect);
    this.depth.addEventListener('change', () => onDepth(Number(this.depth.value)));
    this.element = h('section', { class: 'graph-pane' }, h('div', { class: 'graph-toolbar' }, this.depth, this.note), this.canvas);
  }

  async show(entityId: string, depth: number): Promise<void> {
    this.depth.value = String(depth);
    try {
      const graph = await this.api.get<Neighborhood>(`/entities/${entityId}/neighborhood`, { depth });
      this.view.show(graph, entityId);
      this.canvas.dataset.nodes = String(this.view.size);
      this.canvas.dataset.center = entityId;
      clear(this.note, `${graph.nodes.length} nodes, ${graph.edges.length} edges${graph.truncated ? ' (cut at the node limit)' : ''}. Click a node to center on it.`);
    } catch (err) {
      clear(this.note, errorBox(err));
    }
  }
}
