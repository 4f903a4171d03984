import { organizationNameKey } from './nameKey.js';

/** An existing entity a candidate might be the same as. */
export interface BaseNameCandidate {
  id: string;
  name: string;
  type: string;
  aliases: string[];
}

/**
 * What the suffix rule says about a new name: `match` when exactly one
 * existing entity of the same type has a name or alias equal to it once legal
 * and organizational suffixes are set aside ("Acme" / "Acme Corp");
 * `ambiguous` when several do ("Acme" with "Acme Corp" and "Acme Inc"): the
 * caller creates a new entity and leaves the choice to the dream's merge
 * review, never merging silently; `none` otherwise.
 */
export type BaseNameDecision = { kind: 'match'; id: string } | { kind: 'ambiguous'; ids: string[] } | { kind: 'none' };

/** The base keys of a set of names (empty keys dropped). */
export function baseKeys(names: readonly string[]): string[] {
  return [...new Set(names.map(organizationNameKey).filter(Boolean))];
}

export function decideByBaseName(candidate: { name: string; type: string; aliases: readonly string[] }, existing: readonly BaseNameCandidate[]): BaseNameDecision {
  const keys = new Set(baseKeys([candidate.name, ...candidate.aliases]));
  if (!keys.size) return { kind: 'none' };
  const fits = [...new Map(existing.map((e) => [e.id, e])).values()].filter(
    (e) => e.type === candidate.type && baseKeys([e.name, ...e.aliases]).some((k) => keys.has(k)),
  );
  if (fits.length === 1) return { kind: 'match', id: fits[0].id };
  if (fits.length > 1) return { kind: 'ambiguous', ids: fits.map((e) => e.id).sort() };
  return { kind: 'none' };
}
