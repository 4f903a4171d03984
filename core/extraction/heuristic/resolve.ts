import { nameKey } from '../../domain/canonical.js';
import type { ExistingEntity, ResolutionDecision, ResolutionItem } from '../types.js';

/**
 * Same-or-new judgement for entity resolution without a model: an existing
 * entity is the same when a name or alias matches exactly (case-insensitive,
 * canonicalized) with a compatible type, the strongest such match first
 * (exactTier), or when its name embedding is very close (≥ 0.9) and the type
 * is the same.
 */

const SIMILARITY_THRESHOLD = 0.9;

function compatible(a: string, b: string): boolean {
  return a === b || a === 'other' || b === 'other' || (a === 'concept' && b !== 'person') || (b === 'concept' && a !== 'person');
}

const isFullName = (key: string) => key.includes(' ');

/** A candidate's name keys, computed once per candidate rather than once per entity compared. */
interface CandidateKeys {
  name: string;
  aliases: Set<string>;
}

/**
 * How an existing entity's names meet the candidate's, strongest first: 1 the same name; 2 one side's name is
 * an alias of the other's; 3 they share an alias only. Two different full names that share only an alias
 * ("Aurora Lopez" and "Aurora Chen", each also called "Aurora") name two people: 'distinct', never a match,
 * however close the lookup ranked it (an alias match comes back with similarity 1). Taken as
 * equals, a new Aurora Lopez joined Aurora Chen, and a known one lost her new facts to whichever of the two the
 * lookup listed first.
 */
function exactTier({ name, aliases }: CandidateKeys, e: ExistingEntity): 1 | 2 | 3 | 'distinct' | null {
  const existingName = nameKey(e.name);
  if (name && name === existingName) return 1;
  const existingAliases = new Set(e.aliases.map(nameKey));
  if ((name && existingAliases.has(name)) || aliases.has(existingName)) return 2;
  if (![...aliases].some((a) => existingAliases.has(a))) return null;
  return isFullName(name) && isFullName(existingName) ? 'distinct' : 3;
}

export function judgeItem(item: ResolutionItem): ResolutionDecision {
  const c = item.candidate;
  const keys: CandidateKeys = { name: nameKey(c.name), aliases: new Set(c.aliases.map(nameKey).filter(Boolean)) };
  // Nearest first; ties keep the caller's order so the decision is deterministic.
  const ranked = item.nearest.map((e, i) => ({ e, i })).sort((a, b) => b.e.similarity - a.e.similarity || a.i - b.i).map((x) => x.e);
  const tiers = new Map(ranked.map((e) => [e, exactTier(keys, e)]));
  // The strongest name match wins; among equals, the nearest.
  let exact: { e: ExistingEntity; tier: number } | null = null;
  for (const e of ranked) {
    const tier = tiers.get(e);
    if (typeof tier === 'number' && compatible(e.type, c.type) && (exact === null || tier < exact.tier)) exact = { e, tier };
  }
  if (exact) return { index: item.index, match_id: exact.e.id };
  const close = ranked.find((e) => e.similarity >= SIMILARITY_THRESHOLD && e.type === c.type && tiers.get(e) !== 'distinct');
  return { index: item.index, match_id: close ? close.id : null };
}
