import type { Recipe } from './recipes.js';
import type { RankedList, ResultKind, SignalName } from './types.js';

export interface Fused {
  kind: ResultKind;
  id: string;
  score: number;
  matchedBy: SignalName[];
}

/**
 * Weighted reciprocal rank fusion: each list adds weight / (rrf_k + rank) to
 * the rows it ranks. Ranks, not raw scores, so signals with incomparable
 * scales (cosine, ts_rank, graph reach) combine without calibration.
 */
export function fuse(lists: RankedList[], recipe: Pick<Recipe, 'weights' | 'rrf_k'>): Fused[] {
  const byKey = new Map<string, Fused>();
  for (const list of lists) {
    const weight = recipe.weights[list.signal];
    if (!(weight > 0)) continue;
    list.hits.forEach((hit, index) => {
      const key = `${list.kind}:${hit.id}`;
      let entry = byKey.get(key);
      if (!entry) {
        entry = { kind: list.kind, id: hit.id, score: 0, matchedBy: [] };
        byKey.set(key, entry);
      }
      entry.score += weight / (recipe.rrf_k + index + 1);
      if (!entry.matchedBy.includes(list.signal)) entry.matchedBy.push(list.signal);
    });
  }
  return [...byKey.values()].sort(byFusedScore);
}

/** Best first; equal scores in id order, so rankings are stable. */
export function byFusedScore(a: Fused, b: Fused): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
