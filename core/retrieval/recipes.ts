import { z } from 'zod';
import type { SignalName } from './types.js';

/**
 * A search recipe: how much each signal counts in the fusion and how deep each
 * one looks. Plain data so it can be tuned on data (bench/tune-recipe.ts) and
 * overridden per request; a weight of 0 switches a signal off (its queries are
 * not even run).
 */
export interface Recipe {
  name: string;
  weights: Record<SignalName, number>;
  /** Candidates each signal contributes per kind of row. */
  depths: Record<SignalName, number>;
  /** Reciprocal rank fusion constant: larger flattens the advantage of top ranks. */
  rrf_k: number;
  /** Graph BFS depth from the entities named in the query (1–3). */
  graph_hops: number;
  /** Score multiplier per extra hop. */
  graph_decay: number;
  /** Whether the graph signal's episodes include every turn said by a person the query names, besides those that mention them. */
  graph_speaker_turns: boolean;
  /** Share of a top candidate's score its neighbouring turns gain (core/retrieval/conversation.ts); 0 is off. */
  neighbour_weight: number;
  /** Extra score share for turns said by a person the query names; 0 is off. */
  speaker_boost: number;
  /** Extra score share for candidates mentioning an entity of the type the question asks for (core/retrieval/answerType.ts); 0 is off. */
  answer_type_boost: number;
  /** Extra score share, on top of the answer type's, for such facts whose subject the query names: direct answers; 0 is off. */
  direct_answer_boost: number;
}

const base = {
  depths: { vector: 50, keyword: 50, graph: 50, temporal: 100 },
  rrf_k: 60,
  graph_hops: 2,
  graph_decay: 0.5,
  graph_speaker_turns: false,
  neighbour_weight: 0,
  speaker_boost: 0,
  answer_type_boost: 0,
  direct_answer_boost: 0,
};

const off = { vector: 0, keyword: 0, graph: 0, temporal: 0 };

/**
 * `default` comes from bench/tune-recipe.ts on REALTALK with the local model
 * (all-MiniLM-L6-v2). With whole-turn vectors the rarity-weighted keyword
 * signal found most of what the model found, so vector neighbours entered at
 * weight 0.25 and depth 20. Since longer episodes are also matched by their
 * closest sentence (episode_passage), vector-only recall@10 rose from 41.9 to
 * 48.4 and the tuning moved vector to 1.5 at depth 100: +1.4 points overall
 * (heavier keyword depth gained 0.1 and was left out). With conversation
 * re-ranking, tuning on either half of the conversations raised vector to 2
 * first, and that alone helped both halves (+0.3 overall); the rest of either
 * half's tuning lost recall on the other half, so it was left out. (On a later
 * fresh ingest the tuning half preferred 1.5 by 0.1 point: 1.5 and 2 are
 * within noise of each other.) Graph and temporal rank their candidates by similarity to the
 * query embedding too. With a stronger embedder (EMBEDDING_PROVIDER=openai)
 * try `hybrid`, or re-run the tuning script.
 */
const TUNED_WEIGHTS = { vector: 2, keyword: 2, graph: 0.5, temporal: 2 };

/**
 * Re-ranking after fusion (core/retrieval/conversation.ts). On REALTALK the
 * conversation knobs raised the default's recall@10 from 58.4 to 59.8
 * (neighbouring turns about two thirds of that, the named speaker's turns the
 * rest), on both halves of the conversations; bench/tune-recipe.ts leaves both
 * at 0.2. The answer-type boost then took it to 60.6: 53.8 → 54.3 on one half
 * of the conversations and 65.7 → 66.7 on the other; 0.5 and 1 score the same
 * within 0.1 point, 0.1 gains half as much. (Tuned on one half after other
 * changes it drifts to 0.1, a recipe that loses 0.6 on the other half.)
 * Direct answers (typed facts about a named entity) leave REALTALK's recall
 * where it was at any weight from 0.2 to 1; 0.5 lifts "Ana works at Globex"
 * above Ana's own turn about Carla's job for "Where does Ana work?" (README,
 * "Direct answers").
 */
const CONVERSATION = { neighbour_weight: 0.2, speaker_boost: 0.2, answer_type_boost: 0.3, direct_answer_boost: 0.5 };

/**
 * The default walks one hop: the named entities' own facts. A second hop (the
 * facts of their 20 closest neighbours) left REALTALK's recall@10 where it
 * was (60.8 with one hop, 60.7 with two, no category moving by more than 0.2)
 * and cost a seventh of a namespace-wide search's throughput at 100,000
 * episodes (README, "One hop"). The `graph` recipe still walks three.
 */
const DEFAULT_GRAPH_HOPS = 1;

/**
 * The graph signal's episodes are those that mention the named entities; only
 * the `graph` recipe also takes every turn a named person said. A
 * conversation's speakers said half its turns, so namespace-wide those turns
 * were most of the rows the graph read; without them a search on REALTALK
 * costs PostgreSQL a seventh less and the default's recall rose at every k (@10
 * 60.8 → 61.2; hybrid 58.3 → 58.5); the `graph` recipe, which leans on the walk
 * alone, lost 0.6 at @10 and 2.1 at @50 without them (README, "Speaker turns").
 * The re-ranking's `speaker_boost` still favours those turns among the candidates.
 */
const GRAPH_RECIPE = { graph_hops: 3, graph_speaker_turns: true };

export const RECIPES: Record<string, Recipe> = {
  default: { name: 'default', weights: TUNED_WEIGHTS, ...base, depths: { ...base.depths, vector: 100 }, graph_hops: DEFAULT_GRAPH_HOPS, ...CONVERSATION },
  hybrid: { name: 'hybrid', weights: { vector: 1, keyword: 1.5, graph: 0.5, temporal: 1.5 }, ...base },
  keyword_only: { name: 'keyword_only', weights: { ...off, keyword: 1 }, ...base },
  vector_only: { name: 'vector_only', weights: { ...off, vector: 1 }, ...base },
  graph: { name: 'graph', weights: { ...off, graph: 1, vector: 0.3 }, ...base, ...GRAPH_RECIPE },
  /**
   * The context block's memories: the tuned mix without the graph walk and the vector query (so the query is never
   * embedded: the temporal signal ranks by the query's words instead), shallower, to stay inside its latency budget.
   */
  context: { name: 'context', weights: { ...TUNED_WEIGHTS, vector: 0, graph: 0 }, ...base, depths: { vector: 0, keyword: 30, graph: 0, temporal: 30 } },
};

export const RECIPE_NAMES = Object.keys(RECIPES);

const recipeName = z.string().refine((n) => n in RECIPES, { message: `unknown recipe; one of: ${RECIPE_NAMES.join(', ')}` });
const weight = z.number().min(0).max(100);
const depth = z.number().int().min(0).max(500);

export const recipeInputSchema = z.union([
  recipeName,
  z.strictObject({
    name: recipeName.optional(),
    weights: z.strictObject({ vector: weight, keyword: weight, graph: weight, temporal: weight }).partial().optional(),
    depths: z.strictObject({ vector: depth, keyword: depth, graph: depth, temporal: depth }).partial().optional(),
    rrf_k: z.number().min(1).max(1000).optional(),
    graph_hops: z.number().int().min(1).max(3).optional(),
    graph_decay: z.number().gt(0).max(1).optional(),
    graph_speaker_turns: z.boolean().optional(),
    neighbour_weight: z.number().min(0).max(1).optional(),
    speaker_boost: z.number().min(0).max(5).optional(),
    answer_type_boost: z.number().min(0).max(5).optional(),
    direct_answer_boost: z.number().min(0).max(5).optional(),
  }),
]);
export type RecipeInput = z.infer<typeof recipeInputSchema>;

/** A named preset with the request's overrides applied. */
export function resolveRecipe(input: RecipeInput | undefined, fallback = 'default'): Recipe {
  if (input === undefined) return RECIPES[fallback];
  if (typeof input === 'string') return RECIPES[input];
  const preset = RECIPES[input.name ?? fallback];
  return {
    name: Object.entries(input).some(([key, value]) => key !== 'name' && value !== undefined) ? `${preset.name}+overrides` : preset.name,
    weights: { ...preset.weights, ...input.weights },
    depths: { ...preset.depths, ...input.depths },
    rrf_k: input.rrf_k ?? preset.rrf_k,
    graph_hops: input.graph_hops ?? preset.graph_hops,
    graph_decay: input.graph_decay ?? preset.graph_decay,
    graph_speaker_turns: input.graph_speaker_turns ?? preset.graph_speaker_turns,
    neighbour_weight: input.neighbour_weight ?? preset.neighbour_weight,
    speaker_boost: input.speaker_boost ?? preset.speaker_boost,
    answer_type_boost: input.answer_type_boost ?? preset.answer_type_boost,
    direct_answer_boost: input.direct_answer_boost ?? preset.direct_answer_boost,
  };
}
