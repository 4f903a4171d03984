// npx tsx bench/tune-recipe.ts [--dataset <file-or-folder>] [--k 10] [--passes 2]
//
// Tunes the search recipe (signal weights, depths, RRF constant, graph hops
// and decay) on data, because a weak signal fused at equal weight makes
// results worse. Works on the database `npm run bench:recall` ingested (run
// that first). Every signal's ranking is computed once per question; the
// search is then replayed offline for each candidate recipe (fusion is pure
// rank arithmetic), so hundreds of recipes cost seconds. Coordinate descent
// maximizes recall@k on half of the conversations and reports the other half
// as a holdout, beside keyword-only and the current default. Writes
// bench/results/tune-recipe.json; copy the winner into core/retrieval/recipes.ts.
import path from 'node:path';
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { loadConversationLinks, rerankByConversation, type ConversationLinks } from '../core/retrieval/conversation.js';
import { fuse } from '../core/retrieval/fusion.js';
import { RECIPES, type Recipe } from '../core/retrieval/recipes.js';
import { collectSignals } from '../core/retrieval/search.js';
import { withReadClient } from '../core/retrieval/sql.js';
import type { RankedList, SignalName } from '../core/retrieval/types.js';
import { parseArgs, writeResult } from './support/benchStack.js';
import { DEFAULT_BENCH_DATABASE_URL, siblingDatabaseUrl } from './lib/db.js';
import { loadRecallDataset, namespaceFor, type RecallConversation } from './lib/recallData.js';
import { findIngested } from './lib/recallIngest.js';

const args = parseArgs();
const dataset = path.resolve(args.get('dataset') ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/datasets/realtalk'));
const K = Number(args.get('k') ?? 10);
const passes = Number(args.get('passes') ?? 2);
const log = (m: string) => console.log(`[tune-recipe] ${m}`);

const GRAPH_VARIANTS: Array<[number, number]> = [
  [1, 0.5],
  [2, 0.5],
  [3, 0.5],
  [2, 0.25],
  [2, 0.8],
];
const MAX_DEPTH = 100;

interface Case {
  conversation: string;
  category: string;
  evidence: Set<string>;
  /** Lists of vector, keyword and temporal. */
  base: RankedList[];
  /** Graph lists per "hops/decay" variant. */
  graph: Map<string, RankedList[]>;
  /** Speakers and neighbouring turns of every candidate, for conversation re-ranking. */
  links: ConversationLinks;
}

const variantKey = (hops: number, decay: number) => `${hops}/${decay}`;

async function main() {
  const conversations: RecallConversation[] = loadRecallDataset(dataset);
  const databaseUrl = siblingDatabaseUrl(process.env.DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL, 'mnemo_bench_recall');
  const deps = buildDeps(loadConfig({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: '127.0.0.1:7233', LOG_LEVEL: 'warn' } as NodeJS.ProcessEnv));
  const ingested = await findIngested(deps.pool, conversations);
  if (!ingested) throw new Error(`${databaseUrl} does not hold this dataset: run npm run bench:recall -- --dataset ${dataset} first`);

  // Where every fact points back to (dia_ids), read once.
  const { rows: provenance } = await deps.pool.query<{ fact_id: string; episode_ids: string[] }>(
    `SELECT fe.fact_id, array_agg(fe.episode_id ORDER BY e.occurred_at) AS episode_ids FROM fact_episode fe JOIN episode e ON e.id = fe.episode_id
     WHERE e.namespace LIKE 'recall.%' GROUP BY fe.fact_id`,
  );
  const diaOfFact = new Map(provenance.map((p) => [p.fact_id, p.episode_ids.map((id) => ingested.turnOf.get(id)?.diaId).filter((d): d is string => !!d)]));
  const diaOf = (kind: string, id: string): string[] =>
    kind === 'episode' ? [ingested.turnOf.get(id)?.diaId].filter((d): d is string => !!d) : kind === 'fact' ? (diaOfFact.get(id) ?? []) : [];

  log('collecting every signal once per question');
  const started = Date.now();
  const cases: Case[] = [];
  const full = (hops: number, decay: number): Recipe => ({
    name: 'collect',
    weights: { vector: 1, keyword: 1, graph: 1, temporal: 1 },
    depths: { vector: MAX_DEPTH, keyword: MAX_DEPTH, graph: MAX_DEPTH, temporal: MAX_DEPTH },
    rrf_k: 60,
    graph_hops: hops,
    graph_decay: decay,
    // As the default recipe reads the graph's episodes (the lists are tuned for it).
    graph_speaker_turns: false,
    neighbour_weight: 0,
    speaker_boost: 0,
    answer_type_boost: 0,
    direct_answer_boost: 0,
  });
  for (const c of conversations) {
    const ids = new Set(c.turns.map((t) => t.diaId));
    const scope = { namespace: namespaceFor(c.key), now: new Date(), includeForgotten: false };
    for (const q of c.questions) {
      const evidence = new Set(q.evidence.filter((e) => ids.has(e)));
      if (!evidence.size) continue;
      const graph = new Map<string, RankedList[]>();
      const { base, links } = await withReadClient(deps.readPool, async (db) => {
        const all = await collectSignals(db, deps.embedder, scope, { query: q.question, kinds: ['episode', 'fact'], recipe: full(GRAPH_VARIANTS[0][0], GRAPH_VARIANTS[0][1]) });
        graph.set(variantKey(...GRAPH_VARIANTS[0]), all.lists.filter((l) => l.signal === 'graph'));
        for (const [hops, decay] of GRAPH_VARIANTS.slice(1)) {
          const only = { ...full(hops, decay), weights: { vector: 0, keyword: 0, graph: 1, temporal: 0 } };
          graph.set(variantKey(hops, decay), (await collectSignals(db, deps.embedder, scope, { query: q.question, kinds: ['episode', 'fact'], recipe: only })).lists);
        }
        // Every candidate of every list: whatever a replayed recipe fuses into its top rows has its links.
        const every = [...all.lists, ...[...graph.values()].flat()].flatMap((l) => l.hits.map((h) => ({ kind: l.kind, id: h.id })));
        const ids = (kind: string) => [...new Set(every.filter((h) => h.kind === kind).map((h) => h.id))];
        const candidates = { episodeIds: ids('episode'), factIds: ids('fact'), sourceEpisodeIds: ids('episode'), sourceFactIds: ids('fact') };
        return { base: all.lists.filter((l) => l.signal !== 'graph'), links: await loadConversationLinks(db, scope, candidates, { ...all, subjectIds: all.namedEntityIds }) };
      });
      cases.push({ conversation: c.key, category: q.category, evidence, base, graph, links });
    }
  }
  log(`${cases.length} questions in ${((Date.now() - started) / 1000).toFixed(0)} s`);

  const recallAt = (recipe: Recipe, subset: Case[], k = K): number => {
    let sum = 0;
    for (const c of subset) {
      const lists = [...c.base, ...(c.graph.get(variantKey(recipe.graph_hops, recipe.graph_decay)) ?? [])].map((l) => ({
        ...l,
        hits: l.hits.slice(0, recipe.depths[l.signal]),
      }));
      const ranked: string[] = [];
      const seen = new Set<string>();
      for (const item of rerankByConversation(fuse(lists, recipe), c.links, recipe)) {
        for (const d of diaOf(item.kind, item.id)) {
          if (!seen.has(d)) {
            seen.add(d);
            ranked.push(d);
          }
        }
        if (ranked.length >= k) break;
      }
      const top = ranked.slice(0, k);
      sum += top.filter((d) => c.evidence.has(d)).length / c.evidence.size;
    }
    return sum / Math.max(1, subset.length);
  };

  // Half the conversations tune, the other half check that the gain holds on unseen ones.
  const keys = [...new Set(cases.map((c) => c.conversation))];
  const tuneKeys = new Set(keys.filter((_, i) => i % 2 === 0));
  const tune = cases.filter((c) => tuneKeys.has(c.conversation));
  const holdout = cases.filter((c) => !tuneKeys.has(c.conversation));

  const choices: Array<{ label: string; values: number[]; apply: (r: Recipe, v: number) => Recipe }> = [
    ...(['vector', 'keyword', 'graph', 'temporal'] as SignalName[]).map((s) => ({
      label: `weights.${s}`,
      values: [0, 0.25, 0.5, 0.75, 1, 1.5, 2],
      apply: (r: Recipe, v: number) => ({ ...r, weights: { ...r.weights, [s]: v } }),
    })),
    ...(['vector', 'keyword', 'graph', 'temporal'] as SignalName[]).map((s) => ({
      label: `depths.${s}`,
      values: [10, 20, 30, 50, 100],
      apply: (r: Recipe, v: number) => ({ ...r, depths: { ...r.depths, [s]: v } }),
    })),
    { label: 'rrf_k', values: [5, 10, 20, 30, 60, 100], apply: (r: Recipe, v: number) => ({ ...r, rrf_k: v }) },
    { label: 'graph_hops', values: [1, 2, 3], apply: (r: Recipe, v: number) => ({ ...r, graph_hops: v, graph_decay: 0.5 }) },
    { label: 'graph_decay', values: [0.25, 0.5, 0.8], apply: (r: Recipe, v: number) => (r.graph_hops === 2 ? { ...r, graph_decay: v } : r) },
    { label: 'neighbour_weight', values: [0, 0.1, 0.2, 0.3, 0.5], apply: (r: Recipe, v: number) => ({ ...r, neighbour_weight: v }) },
    { label: 'speaker_boost', values: [0, 0.1, 0.2, 0.5, 1], apply: (r: Recipe, v: number) => ({ ...r, speaker_boost: v }) },
    { label: 'answer_type_boost', values: [0, 0.1, 0.2, 0.3, 0.5, 1], apply: (r: Recipe, v: number) => ({ ...r, answer_type_boost: v }) },
    { label: 'direct_answer_boost', values: [0, 0.2, 0.5, 1], apply: (r: Recipe, v: number) => ({ ...r, direct_answer_boost: v }) },
  ];
  let best: Recipe = { ...RECIPES.default, name: 'tuned' };
  let bestScore = recallAt(best, tune);
  log(`start (default): tune R@${K} = ${(bestScore * 100).toFixed(2)}`);
  for (let pass = 0; pass < passes; pass++) {
    for (const choice of choices) {
      for (const value of choice.values) {
        const candidate = choice.apply(best, value);
        const score = recallAt(candidate, tune);
        if (score > bestScore + 1e-9) {
          best = candidate;
          bestScore = score;
          log(`pass ${pass + 1}: ${choice.label} = ${value} → ${(score * 100).toFixed(2)}`);
        }
      }
    }
  }

  // Every knob of the winner, whatever the recipe grows: all but its name.
  const { name: _name, ...tuned } = best;
  const report = (r: Recipe) => ({
    tune: Math.round(recallAt(r, tune) * 10_000) / 100,
    holdout: Math.round(recallAt(r, holdout) * 10_000) / 100,
    all: Math.round(recallAt(r, cases) * 10_000) / 100,
  });
  const result = {
    dataset: path.basename(dataset),
    objective: `recall@${K}`,
    questions: { tune: tune.length, holdout: holdout.length },
    tune_conversations: [...tuneKeys],
    tuned,
    [`recall_at_${K}_percent`]: {
      tuned: report(best),
      default: report(RECIPES.default),
      keyword_only: report(RECIPES.keyword_only),
      vector_only: report(RECIPES.vector_only),
      graph: report(RECIPES.graph),
    },
  };
  console.log(JSON.stringify(result, null, 2));
  writeResult('tune-recipe', result);
  await deps.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
