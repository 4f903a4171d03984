import type { Queryable } from '../db/pool.js';
import { effectiveConfidence } from '../domain/decay.js';
import type { DecayClass } from '../domain/types.js';
import { getEntity } from './entities.js';
import { entityFilter, factFilter, referenceTime, type ReadScope } from './scope.js';
import { SqlParams } from './sql.js';

export interface GraphNode {
  id: string;
  name: string;
  /** Entity type, or `value` for a literal object (its id is `value:<fact id>`). */
  type: string;
  depth: number;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  predicate: string;
  family: string;
  fact_text: string;
  effective_confidence: number;
}

export interface Neighborhood {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** True when the node cap cut the walk short. */
  truncated: boolean;
}

interface EdgeRow {
  id: string;
  subject_id: string;
  object_id: string | null;
  value: string | null;
  predicate: string;
  family: string;
  fact_text: string;
  confidence: number;
  decay_class: DecayClass;
  last_confirmed_at: Date;
}

/**
 * The entity and everything within `depth` hops over facts valid at the
 * reference time, as nodes and edges for a graph view. Literal-valued facts
 * become leaf `value` nodes. Null when the entity is not visible in the scope.
 */
export async function neighborhood(
  db: Queryable,
  scope: ReadScope,
  id: string,
  depth: number,
  maxNodes = 200,
): Promise<Neighborhood | null> {
  const root = await getEntity(db, scope, id);
  if (!root) return null;
  const at = referenceTime(scope);
  const depthOf = new Map<string, number>([[root.id, 0]]);
  const edges = new Map<string, EdgeRow>();
  let frontier = [root.id];
  let truncated = false;
  for (let hop = 1; hop <= depth && frontier.length && !truncated; hop++) {
    const p = new SqlParams();
    const ids = `${p.add(frontier)}::uuid[]`;
    // Both ends must be live entities of the scope, so an edge never leads out of it.
    const { rows } = await db.query<EdgeRow>(
      `SELECT f.id, f.subject_id, f.object_id, f.value, f.predicate, f.family, f.fact_text, f.confidence, f.decay_class, f.last_confirmed_at
       FROM fact f JOIN entity n ON n.id = f.subject_id LEFT JOIN entity o ON o.id = f.object_id
       WHERE ${factFilter(p, scope)} AND (f.subject_id = ANY(${ids}) OR f.object_id = ANY(${ids}))
         AND ${entityFilter(p, scope, 'n')} AND (f.object_id IS NULL OR (${entityFilter(p, scope, 'o')}))
       ORDER BY f.importance DESC, f.last_confirmed_at DESC, f.id LIMIT ${p.add(maxNodes * 2)}`,
      p.values,
    );
    const next: string[] = [];
    for (const row of rows) {
      for (const end of [row.subject_id, row.object_id]) {
        if (end && !depthOf.has(end)) {
          if (depthOf.size >= maxNodes) {
            truncated = true;
            continue;
          }
          depthOf.set(end, hop);
          next.push(end);
        }
      }
      if ((row.object_id === null || depthOf.has(row.object_id)) && depthOf.has(row.subject_id)) edges.set(row.id, row);
    }
    frontier = next;
  }

  const p = new SqlParams();
  const { rows: entities } = await db.query<{ id: string; name: string; type: string }>(
    `SELECT n.id, n.name, n.type FROM entity n WHERE n.id = ANY(${p.add([...depthOf.keys()])}::uuid[]) AND ${entityFilter(p, scope, 'n', { includeMerged: true })}`,
    p.values,
  );
  const nodes: GraphNode[] = entities
    .map((e) => ({ id: e.id, name: e.name, type: e.type, depth: depthOf.get(e.id) ?? 0 }))
    .sort((a, b) => a.depth - b.depth || a.name.localeCompare(b.name));
  const visible = new Set(nodes.map((n) => n.id));
  const edgeList: GraphEdge[] = [];
  for (const e of edges.values()) {
    if (!visible.has(e.subject_id) || (e.object_id && !visible.has(e.object_id))) continue;
    let target = e.object_id;
    if (!target) {
      target = `value:${e.id}`;
      nodes.push({ id: target, name: e.value ?? '', type: 'value', depth: (depthOf.get(e.subject_id) ?? 0) + 1 });
    }
    edgeList.push({
      id: e.id,
      source: e.subject_id,
      target,
      predicate: e.predicate,
      family: e.family,
      fact_text: e.fact_text,
      effective_confidence: Math.round(effectiveConfidence(e.confidence, e.decay_class, e.last_confirmed_at, at) * 1000) / 1000,
    });
  }
  return { nodes, edges: edgeList, truncated };
}
