import type { BoundFact, DedupDecision, ExistingFactRef } from './contracts.js';

/** Cosine above which two facts on the same subject/pair say the same thing (DESIGN §4). */
export const NEAR_DUPLICATE_COSINE = 0.92;

export function normalizeValue(value: string | null): string {
  return (value ?? '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

export function sameObject(a: { objectId: string | null; value: string | null }, b: { objectId: string | null; value: string | null }): boolean {
  if (a.objectId || b.objectId) return a.objectId === b.objectId;
  return normalizeValue(a.value) === normalizeValue(b.value);
}

/**
 * fact-dedup: compares one bound candidate with the active facts that share its
 * subject (and, for relations, its entity pair). `similarity(id)` is the cosine
 * between the candidate's text and that fact's text.
 */
export function classifyCandidate(
  fact: Pick<BoundFact, 'subjectId' | 'objectId' | 'candidate'>,
  existing: ExistingFactRef[],
  similarity: (factId: string) => number,
): DedupDecision {
  const { candidate } = fact;
  // "worked at Acme in 2010" says when it held, not that what is stored now has ended: history of its own.
  if (candidate.negated && candidate.held_then) return { kind: 'new' };
  const sameTriple = existing.filter(
    (e) =>
      e.subjectId === fact.subjectId &&
      e.predicate === candidate.predicate &&
      sameObject({ objectId: fact.objectId, value: candidate.value }, e),
  );
  if (candidate.negated) {
    const ended = sameTriple[0];
    return ended ? { kind: 'ends', factId: ended.id } : { kind: 'new' };
  }
  const match = sameTriple.sort((a, b) => similarity(b.id) - similarity(a.id))[0];
  if (match) {
    const adds = candidate.fact_text.trim().length > match.factText.trim().length;
    // A longer sentence about the same triple that reads differently adds detail: refine in place.
    return similarity(match.id) <= NEAR_DUPLICATE_COSINE && adds ? { kind: 'refinement', factId: match.id } : { kind: 'duplicate', factId: match.id };
  }
  if (fact.objectId) {
    const samePair = existing
      .filter((e) => e.subjectId === fact.subjectId && e.objectId === fact.objectId)
      .find((e) => similarity(e.id) > NEAR_DUPLICATE_COSINE);
    if (samePair) return { kind: 'duplicate', factId: samePair.id };
  }
  return { kind: 'new' };
}

/** Key that makes two candidates of one episode the same statement. */
export function candidateKey(fact: Pick<BoundFact, 'subjectId' | 'objectId' | 'candidate'>): string {
  const c = fact.candidate;
  return [fact.subjectId, c.predicate, fact.objectId ?? `=${normalizeValue(c.value)}`, c.negated ? 'not' : 'is'].join('|');
}
