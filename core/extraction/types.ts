import { z } from 'zod';
import { entityTypeSchema, memoryKindSchema, predicateFamilySchema } from '../domain/types.js';

/** What every stage sees of the episode. `speaker` is who "I/me/my" refers to. */
export interface EpisodeText {
  text: string;
  speaker: string | null;
  occurredAt: string; // ISO instant: the reference for relative dates
  /** The writer's time zone (IANA name or "+02:00"): relative dates are dates of the writer's calendar. */
  timezone?: string | null;
}

export interface ModelUsage {
  modelCalls: number;
  tokensIn: number;
  tokensOut: number;
}

export const NO_USAGE: ModelUsage = { modelCalls: 0, tokensIn: 0, tokensOut: 0 };

export function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return { modelCalls: a.modelCalls + b.modelCalls, tokensIn: a.tokensIn + b.tokensIn, tokensOut: a.tokensOut + b.tokensOut };
}

// ---- stage 1: entity-extract -------------------------------------------------

export const entityCandidateSchema = z.object({
  /** Canonical name: "The CEO" → "CEO", "the Aurora plan" → "Aurora plan". */
  name: z.string().trim().min(1).max(200),
  type: entityTypeSchema,
  /** Surface forms seen in the text (kept as aliases), canonical name excluded. */
  aliases: z.array(z.string().trim().min(1).max(200)).default([]),
});
export type EntityCandidate = z.infer<typeof entityCandidateSchema>;

export const entityExtractionSchema = z.object({ entities: z.array(entityCandidateSchema).max(200) });

// ---- stage 2: entity-resolve ---------------------------------------------------

export interface ExistingEntity {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  /** Cosine similarity of name embeddings, 1 for an exact name/alias match. */
  similarity: number;
}

export interface ResolutionItem {
  index: number;
  candidate: EntityCandidate;
  nearest: ExistingEntity[];
}

export const resolutionDecisionSchema = z.object({
  index: z.number().int().min(0),
  /** Id of the existing entity it is, or null for a new entity. */
  match_id: z.string().nullable(),
});
export const resolutionSchema = z.object({ decisions: z.array(resolutionDecisionSchema) });
export type ResolutionDecision = z.infer<typeof resolutionDecisionSchema>;

// ---- stage 3: fact-extract -----------------------------------------------------

export const factCandidateSchema = z.object({
  /** Subject entity name, one of the extracted entity names. */
  subject: z.string().trim().min(1).max(200),
  /** Normalized snake_case predicate, e.g. works_at, lives_in, prefers, has_plan, costs. Bounded: it is indexed (a model's
   *  4 KB "predicate" failed the commit on the index row limit instead of being rejected as malformed output). */
  predicate: z.string().trim().regex(/^[a-z][a-z0-9_]*$/).max(100),
  /** Predicate as written, e.g. "joined", "is based in". */
  predicate_raw: z.string().trim().min(1).max(200),
  family: predicateFamilySchema,
  /** Object entity name (one of the extracted entity names), or null when the object is a literal. */
  object: z.string().trim().min(1).max(200).nullable(),
  /** Literal object ("40 euro per month", "email follow-ups") when `object` is null. */
  value: z.string().trim().min(1).max(2000).nullable(),
  /** A self-contained sentence: no pronouns, names spelled out. */
  fact_text: z.string().trim().min(1).max(1000),
  memory_kind: memoryKindSchema,
  importance: z.number().min(0).max(1),
  confidence: z.number().min(0).max(1),
  /** True when the text says the relation ended ("isn't at X anymore", "left X"). */
  negated: z.boolean().default(false),
  /**
   * A negated fact that ended a statement which held before ("I'm back from Tokyo"): that statement as it read while
   * it held ("Sam is traveling to Tokyo."). When nothing stored is there to end, the fact is kept as that statement,
   * held until the end the text gives, so a view of a time before the end reads what held then, not "no longer".
   * Null otherwise (also for what never held: "doesn't like coffee").
   */
  held_text: z.string().trim().min(1).max(1000).nullish(),
  /**
   * A negated fact said as the simple past of a state at a point in time ("I worked at Acme in 2010", "I lived in
   * Paris last year"): the time phrase dates when it held, not when it ended. It held within that period and ends
   * no stored fact. Absent in what was recorded before it existed (read as false).
   */
  held_then: z.boolean().nullish(),
  /** Time phrase that dates this fact, verbatim ("last month", "since March", "until 2025", "in 2023"). */
  time_expression: z.string().trim().min(1).max(200).nullable().default(null),
});
export type FactCandidate = z.infer<typeof factCandidateSchema>;

export const factExtractionSchema = z.object({ facts: z.array(factCandidateSchema).max(200) });

/** Entities known to the fact stage after resolution (canonical names). */
export interface ResolvedEntityRef {
  name: string;
  type: string;
  aliases: string[];
}

/**
 * One implementation per `LLM_PROVIDER`. The heuristic and the model provider
 * answer the same questions with the same shapes, so the workflow is the same.
 */
export interface ExtractionProvider {
  /** The text providers, or the structured source a provider reads (core/extraction/source). */
  readonly name: 'heuristic' | 'openai' | 'email' | 'calendar' | 'json';
  /** Whether stages call a network model (decides local vs. regular activities). */
  readonly usesNetwork: boolean;
  /** Reads the episode's whole stored content (a document it parses) rather than chunks of its text. */
  readonly wholeEpisode?: boolean;
  /** Its entities resolve by exact name or alias only (no embedding or base-name neighbours): structured sources. */
  readonly exactResolution?: boolean;
  extractEntities(episode: EpisodeText): Promise<{ entities: EntityCandidate[]; usage: ModelUsage }>;
  judgeEntities(episode: EpisodeText, items: ResolutionItem[]): Promise<{ decisions: ResolutionDecision[]; usage: ModelUsage }>;
  extractFacts(episode: EpisodeText, entities: ResolvedEntityRef[]): Promise<{ facts: FactCandidate[]; usage: ModelUsage }>;
}

export interface EmbeddingProvider {
  readonly model: string;
  readonly dim: number;
  embed(texts: string[]): Promise<number[][]>;
  /** Loads what the first call would (the local model's thread and session), so that call does not wait for it. */
  warmUp?(): Promise<void>;
  /** Releases what the provider holds (the local model's thread). */
  close?(): Promise<void>;
}
