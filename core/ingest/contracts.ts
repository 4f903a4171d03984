/**
 * Shapes that cross the workflow boundary (workflow inputs and activity
 * inputs/outputs). They live in Temporal history forever: extend them only
 * with optional fields. Pure: imported by workflow code.
 */
import { z } from 'zod';
import { factCandidateSchema } from '../extraction/types.js';
import { decayClassSchema, entityTypeSchema, sensitivitySchema } from '../domain/types.js';
import type { ContentType } from '../sources/contentType.js';

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
  /**
   * The writer's time zone: an IANA name ("Europe/Oslo") or a fixed offset
   * ("+02:00") kept from `occurred_at`; relative dates resolve in it. Absent
   * (UTC) in snapshots recorded before history-order.
   */
  timezone?: string | null;
  /** What the content is (email, calendar_event, json pick their extraction provider); absent in older snapshots: text. */
  contentType?: ContentType;
}

export type BeginResult = ({ proceed: true; episode: EpisodeSnapshot } | { proceed: false; status: string }) & {
  /** The Temporal namespace has Mnemo's search attributes, so the workflow may set them (absent in older histories). */
  searchAttributes?: boolean;
};

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

/**
 * The text a fact is stored with. A negated candidate is stored only when it has nothing to end, as a row of the
 * statement it ended, held until that end: its text is that statement (`held_text`) where the extractor gave it.
 */
export function storedFactText(candidate: FactCandidate): string {
  return candidate.negated && candidate.held_text ? candidate.held_text : candidate.fact_text;
}

/** A negation that never held ("I don't live in Paris."), as opposed to one that ended what held (it carries `held_text`). */
export function isDenial(candidate: FactCandidate): boolean {
  return candidate.negated && !candidate.held_text && !candidate.held_then;
}

/**
 * A stored denial: kept as the instant it was said (`valid_from` = `invalid_at`), so that no view of a time reads it
 * as held. The commit stage's SQL reads the same condition (activities/settleInsert.ts).
 */
export function storedAsDenial(e: Pick<ExistingFactRef, 'validFrom' | 'invalidAt'>): boolean {
  return e.validFrom !== null && e.invalidAt !== null && Date.parse(e.validFrom) === Date.parse(e.invalidAt);
}

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
  /** Set on history inserted already ended by its successor in the chain. */
  invalidatedBy?: string | null;
  /** Single-valued chains: the starts of the statements the fact stands for (see `rechains`). */
  statedFrom?: string[];
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
  /** The fact that closed it (its successor in the chain), if any. */
  invalidatedBy?: string | null;
  /** Starts of the statements of its value it stands for (`properties.stated_from`); absent: just `validFrom`. */
  statedFrom?: string[] | null;
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
  /**
   * Stored facts of a single-valued chain whose world-time interval moves: a
   * late statement slotted in before them, or a confirmation reached back to
   * an earlier start. Optional: plans recorded before history-order lack it.
   */
  rechains?: Array<{ factId: string; validFrom: string | null; invalidAt: string | null; invalidatedBy: string | null; statedFrom: string[]; candidateId: string }>;
  /**
   * A stored fact's later statements cut off by a value that slotted in
   * between them: a copy of the fact (new id) holds them from `validFrom`.
   */
  splits?: Array<{ sourceFactId: string; factId: string; validFrom: string | null; invalidAt: string | null; invalidatedBy: string | null; statedFrom: string[]; candidateId: string }>;
  /**
   * The timed facts the plan was made from. The commit re-plans them against
   * the chains as they are under its lock (a concurrent episode may have
   * committed meanwhile). Optional: plans recorded before history-order lack it.
   */
  facts?: TimedFact[];
}

export interface CommitResult {
  alreadyCommitted: boolean;
  entityIds: string[];
  factIds: string[];
  droppedWrites: number;
}

export const MAX_GRAPH_WRITES_PER_EPISODE = 50;
