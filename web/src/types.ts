/** The shapes of the `/v1` and `/kg` answers the page reads (see core/retrieval, core/memories, core/reviews). */

/**
 * core/domain/types.ts's ENTITY_TYPES, repeated so the bundle does not carry
 * zod (test/kg-web-unit.test.ts keeps the two equal).
 */
export const ENTITY_TYPES = ['person', 'organization', 'project', 'decision', 'event', 'concept', 'place', 'product', 'other'] as const;

export interface SessionInfo {
  csrf_token: string;
  expires_at: string;
  /** null: any namespace. */
  namespaces: string[] | null;
  default_namespace: string;
  temporal_ui_url: string;
  temporal_namespace: string;
}

export interface EntityRef {
  id: string;
  name: string;
  type: string;
}

export interface Entity extends EntityRef {
  aliases: string[];
  summary: string | null;
  sensitivity: string;
  scope_user: string;
  first_seen_at: string;
  last_seen_at: string;
  score?: number;
}

export interface Fact {
  id: string;
  subject: EntityRef;
  predicate: string;
  family: string;
  object: EntityRef | null;
  value: string | null;
  fact_text: string;
  confidence: number;
  effective_confidence: number;
  decay_class: string;
  freshness: string;
  last_confirmed_at: string;
  valid_from: string | null;
  invalid_at: string | null;
  recorded_at: string;
  expired_at: string | null;
  invalidated_by: string | null;
  source: string;
  sensitivity: string;
  episode_ids: string[];
  forgotten_at: string | null;
}

export interface GraphNode {
  id: string;
  name: string;
  type: string;
  depth: number;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  predicate: string;
  fact_text: string;
  effective_confidence: number;
}

export interface Neighborhood {
  nodes: GraphNode[];
  edges: GraphEdge[];
  truncated: boolean;
}

export interface Episode {
  id: string;
  user_id: string | null;
  content: string;
  source: string | null;
  occurred_at: string;
  recorded_at: string;
  status: string;
  error: string | null;
  workflow_id: string;
}

export interface StageRun {
  id: string;
  stage: string;
  attempt: number;
  status: string;
  input: unknown;
  output: unknown;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
}

export interface AuditEntry {
  id: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string | null;
  before: unknown;
  after: unknown;
  created_at: string;
}

export interface ReviewItem {
  id: string;
  kind: string;
  status: string;
  title: string;
  payload: Record<string, unknown>;
  fact_ids: string[];
  entity_ids: string[];
  created_at: string;
}
