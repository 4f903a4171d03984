/**
 * The world-time chain of one single-valued slot (subject + predicate): its
 * values ordered by `valid_from`, each closed by the value that follows it
 * (DESIGN §4 stage 6). Pure and order-free: the chain is a function of the
 * statements made about the slot, never of the order in which they arrived.
 *
 * A stored fact stands for one or more statements of its value (a value said
 * again with no other value between confirms the fact; `stated_from` keeps
 * when each statement said it started). Keeping them lets a value that arrives
 * later split the fact where it falls between them: A (March), A (July), then
 * B (June) is A March–June, B June–July, A again from July.
 */

/** One statement about the slot: of a stored fact, or a candidate of the episode being planned. */
export interface ChainStatement {
  /** The stored fact it belongs to, or the candidate's id. */
  factId: string;
  /** Identity of the value (object entity or normalized literal): equal keys are the same value. */
  key: string;
  /** World-time start in ms; null = unknown (before everything, as reads treat it). */
  from: number | null;
  /** An end the text gave ("until May", "left in 2025"); the chain never extends the value past it. */
  statedEnd: number | null;
  /** True for a candidate of the episode being planned. */
  isNew: boolean;
  /**
   * A denial with nothing stored to end ("I don't live in Paris."): it says the value did not hold at `statedEnd`,
   * and nothing about before. It ends a statement of its value that it joins, and is no value of its own.
   */
  denial?: boolean;
}

/** One interval of the chain: a run of statements of one value with no other value between them. */
export interface ChainRun {
  /** The fact that holds the interval: a stored fact, the id given to a split of one, or a candidate to insert. */
  factId: string;
  /** Set when the interval is a stored fact's later part, cut off by a value that slotted in: a new fact copied from it. */
  splitOf: string | null;
  /** The stored fact in the run, if any. */
  storedFactId: string | null;
  /** Candidates of the episode folded into the run (the first one is inserted when no stored fact holds it). */
  candidateIds: string[];
  key: string;
  validFrom: number | null;
  invalidAt: number | null;
  invalidatedBy: string | null;
  statedEnd: number | null;
  /** Known starts of the run's statements, ascending. */
  statements: number[];
  /** Every statement of the run is a denial: the value never held in it, so it spans no time and closes nothing. */
  denialOnly: boolean;
  /** The run's candidates that are denials. */
  denialIds: string[];
}

const minOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));

/** World-time order: unknown starts first (ordered by their end, open ones last), then by start; 0 for a tie. */
function byWorldTime(a: { from: number | null; statedEnd: number | null }, b: { from: number | null; statedEnd: number | null }): number {
  if (a.from === null || b.from === null) {
    if (a.from !== null) return 1;
    if (b.from !== null) return -1;
    return (a.statedEnd ?? Infinity) - (b.statedEnd ?? Infinity) || 0;
  }
  return a.from - b.from;
}

/** In world-time order; stored before new, ids break exact ties. */
export function compareStatements(a: ChainStatement, b: ChainStatement): number {
  const byTime = byWorldTime(a, b);
  if (byTime !== 0) return byTime;
  if (a.isNew !== b.isNew) return a.isNew ? 1 : -1;
  return a.factId < b.factId ? -1 : a.factId > b.factId ? 1 : 0;
}

/** Two statements (or runs) that claim the same world time: only confidence can order them. */
export function sameWorldTime(a: { from: number | null; statedEnd: number | null }, b: { from: number | null; statedEnd: number | null }): boolean {
  return a.from === b.from && (a.from !== null || a.statedEnd === b.statedEnd);
}

/** Whether statement `s` (next in world-time order) is one more statement of `run`'s value in the same interval. */
function canJoin(run: ChainRun, s: ChainStatement): boolean {
  return (
    run.key === s.key &&
    (run.statedEnd === null || s.from === null || run.statedEnd >= s.from) &&
    (s.isNew || run.storedFactId === null || run.storedFactId === s.factId)
  );
}

/**
 * An earlier run of unknown start that held `s`'s value until an end at or after `s` starts, when every run after
 * it had ended by then: "worked at Acme for ten years" (told in June), then "worked at Globex in 2010", then "I work
 * at Acme" dated March. Unknown starts sort first, so the Globex stint stands between the two Acme statements, yet
 * it is history from before either: told in order, they are one interval, March to June.
 */
function heldThrough(runs: ChainRun[], s: ChainStatement): ChainRun | undefined {
  if (s.from === null) return undefined;
  for (let i = runs.length - 1; i >= 0; i--) {
    const run = runs[i];
    if (run.validFrom === null && run.statedEnd !== null && canJoin(run, s)) return run;
    // A denial of another value held nothing: it stands between nothing.
    if (run.denialOnly) continue;
    if (run.statedEnd === null || run.statedEnd > s.from) return undefined;
  }
  return undefined;
}

/** Runs in the world-time order of their statements. */
const compareRuns = (a: ChainRun, b: ChainRun) => byWorldTime({ from: a.validFrom, statedEnd: a.statedEnd }, { from: b.validFrom, statedEnd: b.statedEnd });

/**
 * Sorts the statements, folds consecutive statements of one value into one
 * run (unless a stated end comes before the next one starts, or they belong
 * to two different stored facts), gives each run its fact (a stored fact keeps
 * its first run; a later run of it is a split with an id from `newId`), and
 * closes every run at the start of the next one, or at its stated end when
 * that comes first (then nothing closes it). Statements that tie in world time
 * must have been arbitrated before; equal ones left (an episode's own
 * statements) are closed together by what follows them.
 */
export function buildChain(statements: ChainStatement[], newId: () => string): ChainRun[] {
  const runs: ChainRun[] = [];
  for (const s of [...statements].sort(compareStatements)) {
    const last = runs[runs.length - 1];
    const joinsLast = last && canJoin(last, s);
    const run = joinsLast ? last : heldThrough(runs, s);
    if (run) {
      run.validFrom = run.validFrom === null ? s.from : s.from === null ? run.validFrom : Math.min(run.validFrom, s.from);
      // A dated statement that starts where the run's stated end is and goes on ("lived in Lyon in 2005", then "in
      // 2006") extends it; any other keeps the earliest end given (the chain never stretches a value past one).
      const reachesFurther = s.from !== null && run.statedEnd !== null && s.statedEnd !== null && s.statedEnd > run.statedEnd;
      run.statedEnd = reachesFurther ? s.statedEnd : minOf(run.statedEnd, s.statedEnd);
      if (s.from !== null && !run.statements.includes(s.from)) run.statements.push(s.from);
      if (s.isNew) run.candidateIds.push(s.factId);
      else run.storedFactId = s.factId;
      run.denialOnly &&= !!s.denial;
      if (s.denial && s.isNew) run.denialIds.push(s.factId);
      // The run it joined now starts later than the runs that followed it: they go first again.
      if (!joinsLast) runs.sort(compareRuns);
      continue;
    }
    runs.push({
      factId: '',
      splitOf: null,
      storedFactId: s.isNew ? null : s.factId,
      candidateIds: s.isNew ? [s.factId] : [],
      key: s.key,
      validFrom: s.from,
      invalidAt: null,
      invalidatedBy: null,
      statedEnd: s.statedEnd,
      statements: s.from === null ? [] : [s.from],
      denialOnly: !!s.denial,
      denialIds: s.denial && s.isNew ? [s.factId] : [],
    });
  }
  const owned = new Set<string>();
  for (const run of runs) {
    run.statements.sort((a, b) => a - b);
    if (run.storedFactId === null) {
      // What a run inserts reads as what held in it: a statement of the value, not a denial folded into it.
      run.factId = run.candidateIds.find((id) => !run.denialIds.includes(id)) ?? run.candidateIds[0];
    } else if (owned.has(run.storedFactId)) {
      run.factId = newId();
      run.splitOf = run.storedFactId;
    } else {
      run.factId = run.storedFactId;
      owned.add(run.storedFactId);
    }
  }
  runs.forEach((run, i) => {
    if (run.denialOnly) {
      // Said not to hold at its end, and nothing about before: an instant, which no view of a time reads as held.
      run.validFrom = run.invalidAt = run.statedEnd;
      return;
    }
    // A run of unknown start that held until its stated end is not closed by a dated run that had itself ended by
    // then ("worked at Acme for ten years", told now, after "worked at Globex in 2010"): that one came before it.
    const endedBefore = (n: ChainRun) => run.validFrom === null && run.statedEnd !== null && n.statedEnd !== null && n.statedEnd <= run.statedEnd;
    const next = runs
      .slice(i + 1)
      .find((n) => !n.denialOnly && !sameWorldTime({ from: n.validFrom, statedEnd: n.statedEnd }, { from: run.validFrom, statedEnd: run.statedEnd }) && !endedBefore(n));
    if (!next || next.validFrom === null || (run.statedEnd !== null && run.statedEnd < next.validFrom)) {
      run.invalidAt = run.statedEnd;
    } else {
      run.invalidAt = next.validFrom;
      run.invalidatedBy = next.factId;
    }
  });
  return runs;
}
