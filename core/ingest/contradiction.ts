import { randomUUID } from 'node:crypto';
import { buildChain, sameWorldTime, type ChainRun, type ChainStatement } from './chain.js';
import { isDenial, storedAsDenial, storedFactText, type ExistingFactRef, type TimedFact, type WritePlan } from './contracts.js';
import { normalizeValue, sameObject } from './dedup.js';

const time = (iso: string | null | undefined): number | null => (iso ? Date.parse(iso) : null);
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
/** When each statement a stored fact stands for said it started (`statedFrom`), or its one start. */
const statedStarts = (e: ExistingFactRef): Array<string | null> => (e.statedFrom?.length ? e.statedFrom : [e.validFrom]);

/** A plan that writes nothing. */
export function emptyWritePlan(): WritePlan {
  return { inserts: [], confirmations: [], refinements: [], invalidations: [], rejections: [], reviews: [], rechains: [], splits: [] };
}

/** The single-valued slot a fact belongs to. */
export function slotKey(subjectId: string, predicate: string): string {
  return `${subjectId}|${predicate}`;
}

/** Identity of a value: the object entity, else the normalized literal. */
export function valueKey(f: { objectId: string | null; value: string | null }): string {
  return f.objectId ? `entity:${f.objectId}` : `value:${normalizeValue(f.value)}`;
}

/**
 * Stage 6 as a pure function: turns the episode's timed, deduplicated facts
 * into a write plan. `chains` holds the stored, believed facts (history
 * included) of every single-valued slot the episode touches.
 *
 * Single-valued predicates (lives_in, works_at, costs, …) form one chain in
 * world time whatever order their statements arrive in (`buildChain`): a later
 * `valid_from` supersedes an earlier one, a late statement with an earlier
 * `valid_from` is stored as history closed by its successor, one that falls
 * between two known values slots in (its predecessor is re-closed), an end the
 * text gave is kept, and the same value stated again with no other value
 * between confirms the stored fact (its `statedFrom` remembers each start, so
 * a value that later falls between them splits it). Confidence arbitrates only statements
 * that claim the same world time: higher replaces the value in place
 * (audited), lower is rejected, equal waits for an operator. A denial with
 * nothing to end ("I don't live in Paris.") held at no time: it is kept as the
 * instant it was said, and ends only a statement of its value that joins it.
 * Multi-valued predicates keep every value.
 */
export function planWrites(facts: TimedFact[], chains: ExistingFactRef[], occurredAt: string, newId: () => string = randomUUID): WritePlan {
  const plan = emptyWritePlan();
  plan.facts = facts;
  const inChain = (f: TimedFact) => f.singleValued;
  const asserted = facts.filter((f) => !f.candidate.negated);

  // Multi-valued (and every non-chain) statement: as fact-dedup decided.
  for (const f of facts.filter((x) => !inChain(x))) {
    const d = f.decision;
    if (f.candidate.negated) {
      if (d.kind === 'ends') plan.invalidations.push({ factId: d.factId, invalidAt: f.invalidAt ?? occurredAt, invalidatedBy: null, candidateId: f.id });
      // A past state said with its start too ("worked there from 2019 to 2021") keeps it; otherwise its start is
      // unknown. A denial held at no time: the instant it was said not to hold.
      else if (d.kind === 'new') {
        const invalidAt = f.invalidAt ?? occurredAt;
        plan.inserts.push({ ...f, validFrom: isDenial(f.candidate) ? invalidAt : f.validFrom, invalidAt, invalidatedBy: null });
      }
    } else if (d.kind === 'duplicate') plan.confirmations.push({ factId: d.factId, candidateId: f.id });
    else if (d.kind === 'refinement') plan.refinements.push(refinementOf(f, d.factId, 'refinement: same statement with more detail'));
    else plan.inserts.push(f);
  }

  const slots = new Map<string, TimedFact[]>();
  for (const f of facts.filter(inChain)) {
    const key = slotKey(f.subjectId, f.candidate.predicate);
    slots.set(key, [...(slots.get(key) ?? []), f]);
  }
  for (const [key, slotFacts] of slots) {
    planSlot(plan, slotFacts, chains.filter((e) => slotKey(e.subjectId, e.predicate) === key), asserted, occurredAt, newId);
  }
  return plan;
}

/**
 * A statement of its own time ("I lived in Lyon in 2005.", fact-dedup's `new`) that joins a stored fact's run before
 * every statement the fact holds: the run's text is its earliest statement's, whichever arrived first ("… in 2006."
 * told first, then "… in 2005.", read "in 2006" from 2005 on). Duplicates and refinements keep fact-dedup's choice.
 */
function startsStoredRun(f: TimedFact, run: ChainRun, byId: Map<string, ExistingFactRef>): boolean {
  const stored = run.storedFactId === null || run.splitOf ? undefined : byId.get(run.storedFactId);
  const from = time(f.validFrom);
  // A denial candidate has no start (planSlot): it never starts a run.
  if (!stored || storedAsDenial(stored) || f.decision.kind !== 'new' || from === null) return false;
  // The same words earlier only confirm the fact (its start moves back either way).
  if (storedFactText(f.candidate) === stored.factText) return false;
  // An unknown start comes before every known one.
  return statedStarts(stored).map(time).every((start) => start !== null && from < start);
}

function refinementOf(f: TimedFact, factId: string, reason: string): WritePlan['refinements'][number] {
  // The text a fact is stored with: what held, for a statement that it ended (as an insert stores it).
  return { factId, candidateId: f.id, factText: storedFactText(f.candidate), value: f.candidate.value, objectId: f.objectId, confidence: f.candidate.confidence, reason };
}

/** One single-valued slot: arbitrate world-time ties, build the chain, write what differs from what is stored. */
function planSlot(plan: WritePlan, slotFacts: TimedFact[], stored: ExistingFactRef[], asserted: TimedFact[], occurredAt: string, newId: () => string): void {
  const storedIds = new Set(stored.map((e) => e.id));
  const byId = new Map(stored.map((e) => [e.id, e]));
  /** The episode's own new value for the slot, which succeeds whatever it says ended. */
  const successorOf = (f: TimedFact) =>
    asserted.find(
      (a) =>
        a.singleValued &&
        a.subjectId === f.subjectId &&
        a.candidate.predicate === f.candidate.predicate &&
        !sameObject({ objectId: a.objectId, value: a.candidate.value }, { objectId: f.objectId, value: f.candidate.value }),
    );
  // A stored fact's statements share its end; an end set by a successor still in the chain is recomputed from it, any other end was given.
  const storedEnd = new Map(stored.map((e) => [e.id, e.invalidatedBy && storedIds.has(e.invalidatedBy) ? null : time(e.invalidAt)]));
  const storedKey = new Map(stored.map((e) => [e.id, valueKey(e)]));
  const candidates = new Map<string, TimedFact>();
  const newStatements: ChainStatement[] = [];
  const cause = new Map<string, string>(); // stored fact id → the candidate that changed it
  const endOf = (f: TimedFact) => time(successorOf(f)?.validFrom ?? f.invalidAt ?? occurredAt);

  for (const f of slotFacts.filter((x) => x.candidate.negated)) {
    if (f.decision.kind === 'ends') {
      // Ends a fact that left the chain meanwhile (forgotten, retracted): nothing left to end.
      if (!storedEnd.has(f.decision.factId)) continue;
      const end = endOf(f)!;
      const before = storedEnd.get(f.decision.factId) ?? null;
      storedEnd.set(f.decision.factId, before === null ? end : Math.min(before, end));
      cause.set(f.decision.factId, f.id);
      continue;
    }
    // Nothing stored to end: the statement is history of its own ("left Google last May"), from when it says it
    // started ("worked there from 2019 to 2021"), else from an unknown start. A denial ("I don't live in Paris.")
    // says nothing held: it ends only a statement of its value that joins it (told before it, arriving after).
    const denial = isDenial(f.candidate);
    candidates.set(f.id, { ...f, validFrom: denial ? null : f.validFrom, invalidAt: iso(endOf(f)) });
    newStatements.push({ factId: f.id, key: valueKey({ objectId: f.objectId, value: f.candidate.value }), from: denial ? null : time(f.validFrom), statedEnd: endOf(f), isNew: true, denial });
  }

  const storedStatements = (): ChainStatement[] =>
    stored.flatMap((e) =>
      storedAsDenial(e)
        ? [{ factId: e.id, key: storedKey.get(e.id)!, from: null, statedEnd: time(e.invalidAt), isNew: false, denial: true }]
        : statedStarts(e).map((from) => ({ factId: e.id, key: storedKey.get(e.id)!, from: time(from), statedEnd: storedEnd.get(e.id) ?? null, isNew: false })),
    );

  for (const f of slotFacts.filter((x) => !x.candidate.negated)) {
    const from = time(f.validFrom) ?? (f.invalidAt ? null : time(occurredAt));
    const statement: ChainStatement = { factId: f.id, key: valueKey({ objectId: f.objectId, value: f.candidate.value }), from, statedEnd: time(f.invalidAt), isNew: true };
    // Another stored value claims the very same world time: only confidence can decide.
    const rival = storedStatements().find((m) => !m.denial && m.key !== statement.key && sameWorldTime(m, statement));
    if (rival) {
      const against = byId.get(rival.factId)!;
      const why = statement.from === null ? 'unknown valid time' : 'same valid time';
      if (f.candidate.confidence > against.confidence) {
        plan.refinements.push(refinementOf(f, against.id, `contradiction (${why}): higher confidence ${f.candidate.confidence} > ${against.confidence} replaces the value`));
        storedKey.set(against.id, statement.key);
      } else if (f.candidate.confidence < against.confidence) {
        plan.rejections.push({ candidateId: f.id, againstFactId: against.id, reason: `contradiction (${why}): confidence ${f.candidate.confidence} < ${against.confidence} of the stored value` });
      } else {
        plan.reviews.push({ candidateId: f.id, againstFactId: against.id, reason: `contradiction (${why}) with equal confidence ${against.confidence}` });
        plan.inserts.push({ ...f, validFrom: iso(statement.from), invalidAt: f.invalidAt, invalidatedBy: null });
      }
      continue;
    }
    candidates.set(f.id, f);
    newStatements.push(statement);
  }

  const runs = buildChain([...storedStatements(), ...newStatements], newId);
  const firstCandidate = [...candidates.keys()][0] ?? slotFacts[0].id;
  for (const run of runs) {
    const validFrom = iso(run.validFrom);
    const invalidAt = iso(run.invalidAt);
    const statements = run.statements.map((t) => iso(t)!);
    const folded = run.candidateIds.filter((id) => id !== run.factId);
    // A stored denial that a statement of its value now joins is kept as what held, until the denial.
    const heldOverDenial = run.storedFactId !== null && storedAsDenial(byId.get(run.storedFactId)!) && !run.denialOnly ? folded.find((id) => !run.denialIds.includes(id)) : undefined;
    for (const candidateId of folded) {
      const f = candidates.get(candidateId)!;
      if (candidateId === heldOverDenial) plan.refinements.push(refinementOf(f, run.factId, 'a statement that the value held replaces the denial that ended it'));
      else if (startsStoredRun(f, run, byId)) plan.refinements.push(refinementOf(f, run.factId, 'the earliest statement of the value gives the interval its text'));
      else if (f.decision.kind === 'refinement' && f.decision.factId === run.factId) plan.refinements.push(refinementOf(f, run.factId, 'refinement: same statement with more detail'));
      else plan.confirmations.push({ factId: run.factId, candidateId });
      if (run.storedFactId) cause.set(run.storedFactId, candidateId);
    }
    if (run.storedFactId === null) {
      plan.inserts.push({ ...candidates.get(run.factId)!, validFrom, invalidAt, invalidatedBy: run.invalidatedBy, statedFrom: statements });
      continue;
    }
    const candidateId = cause.get(run.storedFactId) ?? (run.invalidatedBy && candidates.has(run.invalidatedBy) ? run.invalidatedBy : firstCandidate);
    if (run.splitOf) {
      plan.splits!.push({ sourceFactId: run.splitOf, factId: run.factId, validFrom, invalidAt, invalidatedBy: run.invalidatedBy, statedFrom: statements, candidateId });
      continue;
    }
    const before = byId.get(run.storedFactId)!;
    const beforeStatements = statedStarts(before).filter((x): x is string => x !== null).map((x) => iso(time(x))!);
    const sameFrom = time(before.validFrom) === run.validFrom;
    const sameStatements = beforeStatements.join() === statements.join();
    if (sameFrom && sameStatements && time(before.invalidAt) === run.invalidAt && (before.invalidatedBy ?? null) === run.invalidatedBy) continue;
    if (sameFrom && sameStatements && before.invalidAt === null && invalidAt !== null) {
      plan.invalidations.push({ factId: before.id, invalidAt, invalidatedBy: run.invalidatedBy, candidateId });
    } else {
      plan.rechains!.push({ factId: before.id, validFrom, invalidAt, invalidatedBy: run.invalidatedBy, statedFrom: statements, candidateId });
    }
  }
}
