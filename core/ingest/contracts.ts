/**
 * Shapes that cross the workflow boundary (workflow inputs and activity
 * inputs/outputs). They live in Temporal history forever: extend them only
 * with optional fields. Pure: imported by workflow code.
 */
import { z } from 'zod';
import { factCandidateSchema } from '../extraction/types.js';
import { decayClassSchema, entityTypeSchema, sensitivitySchema } from '../domain/types.js';

export const WORKFLOW_NAMES = { ingestEpisode: 'ingestEpisode', reconcile: 'reconcile', refreshSearchStats: 'refreshSearchStats' } as const;
export const RECONCILE_SCHEDULE_ID = 'mnemo-reconcile';
export const SEARCH_STATS_SCHEDULE_ID = 'mnemo-search-stats';

export function episodeWorkflowId(episodeId: string): string {
  return `episode:${episodeId}`;
}

export interface EpisodeSnapshot {
  id: string;
  namespace: string;
  userId: string | null;
  agentId: string | null;
  runId: string | null;
  speaker: string | null;
  content: string;
  source: string | null;
  metadata: Record<string, unknown>;
  occurredAt: string;
  tValidOverride: string | null;
  skipExtraction: boolean;
  status: string;
}

export type BeginResult = { proceed: true; episode: EpisodeSnapshot } | { proceed: false; status: string };

/** An entity of this episode after resolution: an existing id, or a fresh id for a new entity. */
export const resolvedEntitySchema = z.object({
  id: z.string(),
  isNew: z.boolean(),
  name: z.string(),
  type: entityTypeSchema,
  aliases: z.array(z.string()),
});
export type ResolvedEntity = z.infer<typeof resolvedEntitySchema>;

export type FactCandidate = z.infer<typeof factCandidateSchema>;

/** What fact-dedup decided for one candidate, relative to facts already in the graph. */
export type DedupDecision =
  | { kind: 'new' }
  | { kind: 'duplicate'; factId: string }
  | { kind: 'refinement'; factId: string }
  /** A negated candidate that ends an existing active fact. */
  | { kind: 'ends'; factId: string };

/** A candidate bound to entity ids, ready for the later stages. */
export const boundFactSchema = z.object({
  id: z.string(),
  candidate: factCandidateSchema,
  subjectId: z.string(),
  objectId: z.string().nullable(),
  decayClass: decayClassSchema,
  sensitivity: sensitivitySchema,
  singleValued: z.boolean(),
});
export type BoundFact = z.infer<typeof boundFactSchema> & { decision: DedupDecision };

export interface TimedFact extends BoundFact {
  validFrom: string | null;
  invalidAt: string | null;
  /** Set on history inserted already ended by a successor of the same episode. */
  invalidatedBy?: string | null;
}

export interface ExistingFactRef {
  id: string;
  subjectId: string;
  predicate: string;
  objectId: string | null;
  value: string | null;
  validFrom: string | null;
  invalidAt: string | null;
  confidence: number;
  factText: string;
}

/** The whole write of one episode, decided by stages 4–6 and applied by commit in one transaction. */
export interface WritePlan {
  /** Facts to insert (new, or historical ones ended by this episode). */
  inserts: TimedFact[];
  /** Existing facts seen again: refresh last_confirmed_at. */
  confirmations: Array<{ factId: string; candidateId: string }>;
  /** Existing facts updated in place; previous values kept. */
  refinements: Array<{ factId: string; candidateId: string; factText: string; value: string | null; objectId: string | null; confidence: number; reason: string }>;
  /** Existing facts that stop holding (world time) and stop being current (system time). */
  invalidations: Array<{ factId: string; invalidAt: string; invalidatedBy: string | null; candidateId: string }>;
  /** Candidates dropped because an existing fact with higher confidence says otherwise. */
  rejections: Array<{ candidateId: string; againstFactId: string; reason: string }>;
  /** Equal-confidence conflicts: inserted but not believed until an operator decides. */
  reviews: Array<{ candidateId: string; againstFactId: string; reason: string }>;
}

export interface CommitResult {
  alreadyCommitted: boolean;
  entityIds: string[];
  factIds: string[];
  droppedWrites: number;
}

export const MAX_GRAPH_WRITES_PER_EPISODE = 50;
