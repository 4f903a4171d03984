import cytoscape, { type Core, type ElementDefinition } from 'cytoscape';
import type { Neighborhood } from './types.js';

/** Node colours by entity type (literal values are small grey leaves). */
const TYPE_COLOURS: Record<string, string> = {
  person: '#2f6fdd',
  organization: '#d9822b',
  place: '#2e9e5b',
  project: '#8a4fd0',
  product: '#c2417a',
  event: '#b5a21b',
  concept: '#4aa3b5',
  decision: '#7a5c3d',
  other: '#777',
  value: '#aaa',
};

export function toElements(graph: Neighborhood, centerId: string): ElementDefinition[] {
  return [
    ...graph.nodes.map((n) => ({
      data: { id: n.id, label: n.name, type: n.type, depth: n.depth, colour: TYPE_COLOURS[n.type] ?? TYPE_COLOURS.other, center: n.id === centerId ? 1 : 0 },
    })),
    ...graph.edges.map((e) => ({ data: { id: `edge:${e.id}`, source: e.source, target: e.target, label: e.predicate, factId: e.id } })),
  ];
}

/** The neighborhood drawn with cytoscape; clicking an entity node asks to center on it. */
export class GraphView {
  private cy: Core | null = null;

  constructor(
    private readonly container: HTMLElement,
    private readonly onSelect: (entityId: string) => void,
  ) {}

  show(graph: Neighborhood, centerId: string): void {
    this.cy?.destroy();
    this.cy = cytoscape({
      container: this.container,
      elements: toElements(graph, centerId),
      // Rings by hops from the center: a neighborhood reads outward from the selected entity.
      layout: { name: 'concentric', concentric: (node) => 10 - Number(node.data('depth')), levelWidth: () => 1, minNodeSpacing: 50, animate: false },
      // A small neighborhood is not blown up to fill the pane.
      maxZoom: 1.6,
      minZoom: 0.2,
      wheelSensitivity: 0.3,
      style: [
        {
          selector: 'node',
          style: {
            'background-color': 'data(colour)',
            label: 'data(label)',
            color: '#222',
            'font-size': 11,
            'text-valign': 'bottom',
            'text-margin-y': 4,
            width: 26,
            height: 26,
          },
        },
        { selector: 'node[type = "value"]', style: { shape: 'round-rectangle', width: 14, height: 14 } },
        { selector: 'node[center = 1]', style: { width: 40, height: 40, 'border-width': 3, 'border-color': '#111', 'font-weight': 'bold' } },
        {
          selector: 'edge',
          style: {
            width: 1.5,
            'line-color': '#bbb',
            'target-arrow-color': '#bbb',
            'target-arrow-shape': 'triangle',
            'curve-style': 'bezier',
            label: 'data(label)',
            'font-size': 9,
            color: '#666',
            'text-rotation': 'autorotate',
          },
        },
      ],
    });
    this.cy.on('tap', 'node', (event) => {
      const id = String(event.target.id());
      if (!id.startsWith('value:')) this.onSelect(id);
    });
  }

  /** How many nodes are drawn (the page's tests read it from a data attribute). */
  get size(): number {
    return this.cy?.nodes().length ?? 0;
  }
}
