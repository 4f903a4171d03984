import { nameKey } from '../../domain/canonical.js';
import type { ExistingEntity, ResolutionDecision, ResolutionItem } from '../types.js';

/**
 * Same-or-new judgement for entity resolution without a model: an existing
 * entity is the same when a name or alias matches exactly (case-insensitive,
 * canonicalized) with a compatible type, or when its name embedding is very
 * close (≥ 0.9) and the type is the same.
 */

const SIMILARITY_THRESHOLD = 0.9;

function compatible(a: string, b: string): boolean {
  return a === b || a === 'other' || b === 'other' || (a === 'concept' && b !== 'person') || (b === 'concept' && a !== 'person');
}

function exactMatch(candidateKeys: Set<string>, e: ExistingEntity): boolean {
  return [e.name, ...e.aliases].some((n) => candidateKeys.has(nameKey(n)));
}

export function judgeItem(item: ResolutionItem): ResolutionDecision {
  const c = item.candidate;
  const keys = new Set([c.name, ...c.aliases].map(nameKey).filter(Boolean));
  // Nearest first; ties keep the caller's order so the decision is deterministic.
  const ranked = item.nearest.map((e, i) => ({ e, i })).sort((a, b) => b.e.similarity - a.e.similarity || a.i - b.i).map((x) => x.e);
  const exact = ranked.find((e) => exactMatch(keys, e) && compatible(e.type, c.type));
  if (exact) return { index: item.index, match_id: exact.id };
  const close = ranked.find((e) => e.similarity >= SIMILARITY_THRESHOLD && e.type === c.type);
  return { index: item.index, match_id: close ? close.id : null };
}
