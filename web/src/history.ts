import type { Fact } from './types.js';

/** A fact as the panel lists it: whether it still holds, and what replaced it. */
export interface FactLine {
  fact: Fact;
  superseded: boolean;
  /** Soft-deleted: shown to the operator, who may restore it. */
  forgotten: boolean;
  replacedBy: Fact | null;
  /** When it stopped holding in world time (its `invalid_at`). */
  replacedAt: string | null;
}

/** Facts of one predicate of the entity, newest value first. */
export interface FactChain {
  predicate: string;
  lines: FactLine[];
}

/** A fact no longer believed at `now`: closed in world time, or retracted. */
export function isSuperseded(fact: Fact, now: Date): boolean {
  if (fact.invalid_at && new Date(fact.invalid_at).getTime() <= now.getTime()) return true;
  return fact.invalidated_by !== null || (fact.expired_at !== null && fact.invalid_at === null);
}

/** Chains whose newest line still holds come first, then superseded, then forgotten ones. */
const rank = (line: FactLine) => (line.forgotten ? 2 : line.superseded ? 1 : 0);

const time = (iso: string | null) => (iso ? new Date(iso).getTime() : Number.NEGATIVE_INFINITY);

/**
 * Groups facts into history chains by predicate (current values first, then
 * what they replaced, latest first, forgotten ones last), each superseded one
 * linked to the fact that replaced it when that fact is among them.
 */
export function historyChains(facts: Fact[], now: Date): FactChain[] {
  const byId = new Map(facts.map((f) => [f.id, f]));
  const chains = new Map<string, FactLine[]>();
  for (const fact of facts) {
    const superseded = isSuperseded(fact, now);
    const line: FactLine = {
      fact,
      superseded,
      forgotten: fact.forgotten_at !== null,
      replacedBy: fact.invalidated_by ? (byId.get(fact.invalidated_by) ?? null) : null,
      replacedAt: superseded ? fact.invalid_at : null,
    };
    const lines = chains.get(fact.predicate) ?? [];
    lines.push(line);
    chains.set(fact.predicate, lines);
  }
  return [...chains.entries()]
    .map(([predicate, lines]) => ({
      predicate,
      lines: lines.sort(
        (a, b) => Number(a.forgotten) - Number(b.forgotten) || Number(a.superseded) - Number(b.superseded) || time(b.fact.valid_from) - time(a.fact.valid_from) || time(b.fact.recorded_at) - time(a.fact.recorded_at),
      ),
    }))
    .sort((a, b) => rank(a.lines[0]) - rank(b.lines[0]) || a.predicate.localeCompare(b.predicate));
}

/** The object of a fact in words: the entity's name or the literal value. */
export function objectText(fact: Fact): string {
  return fact.object ? fact.object.name : (fact.value ?? '');
}
