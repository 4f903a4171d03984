/** A query lexeme with its share of the table's rows and the weight a row containing it gains. */
export interface KeywordTerm {
  lexeme: string;
  share: number;
  idf: number;
}

/**
 * One phase of a keyword scan: it reads the candidate rows matching `match`
 * that no earlier phase read (`readBefore`), and afterwards no unread
 * candidate can score more than `unreadBound`.
 */
export interface KeywordPhase {
  match: string;
  /** Lexemes one of which every row matching `match` holds (what an index of single terms is asked for). */
  generators: string[];
  readBefore: string | null;
  unreadBound: number;
}

export interface KeywordPlan {
  /** Every term, scored on each row read. */
  terms: KeywordTerm[];
  /** The OR of the generating terms: the rows holding one are the candidates. */
  candidates: string;
  phases: KeywordPhase[];
}

export interface KeywordPlanOptions {
  /**
   * Bounds of the rarity phases in estimated rows: the first takes the rarest
   * terms while together they match at most the first bound (at least the
   * rarest term), the next up to the next bound, the last the rest.
   */
  phaseRows: readonly number[];
  /**
   * A first phase reads the rows holding a generating term together with
   * another query term (a person's first and last name, an employer and a
   * project, a name and "work") when the pair matches at most this many
   * estimated rows (`pairEstimate`); 0 turns it off.
   */
  pairRows: number;
  /**
   * How a pair's rows are estimated: `rarer` (the default) by the rarer
   * term's, which the pair cannot exceed; `joint` by both terms' shares
   * multiplied, as if they were independent. Which pays depends on what else
   * bounds the scan (see keyword.ts): `joint` pairs terms that are each common
   * but rarely meet, whose rows a scan of either term would read by the thousand.
   */
  pairEstimate?: 'rarer' | 'joint';
  /**
   * Narrowed to a user, find each phase's rows through the per-user term index
   * (`episode_user_terms_idx`: a user's postings of a word) instead of the word's
   * postings over the whole table (see keyword.ts). Episodes only.
   */
  userTerms?: boolean;
}

/** Terms in more than this share of rows still score, but stop generating candidates (unless every term is that common). */
export const COMMON_TERM_SHARE = 0.05;
/** A pair's estimated share of the rows, by `KeywordPlanOptions.pairEstimate`. */
const PAIR_SHARE: Record<NonNullable<KeywordPlanOptions['pairEstimate']>, (a: KeywordTerm, b: KeywordTerm) => number> = {
  rarer: (a, b) => Math.min(a.share, b.share),
  joint: (a, b) => a.share * b.share,
};

/** The pair phase is planned for at most this many terms (the bounds enumerate their subsets). */
const MAX_PAIR_TERMS = 8;

/** The most phases a plan with these options can have: the pair phase and one per rarity bound, plus the rest. */
export function phaseCount(options: KeywordPlanOptions): number {
  return (options.pairRows > 0 ? 1 : 0) + options.phaseRows.length + 1;
}

/** A lexeme as a tsquery operand: quoted, so no lexeme is read as tsquery syntax. */
export function tsqueryOperand(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

const anyOf = (parts: string[]) => parts.join(' | ');

/**
 * The most an unread candidate can score: it holds at least one of `open`
 * (the generating terms no phase has read yet), any of `common`, and none of
 * the pairs the pair phase read. Subsets are enumerated: the pair phase is
 * only planned for a few terms.
 */
function maxUnreadScore(open: KeywordTerm[], common: KeywordTerm[], pairs: Array<[KeywordTerm, KeywordTerm]>): number {
  if (!open.length) return Number.NEGATIVE_INFINITY;
  const sum = (ts: KeywordTerm[]) => ts.reduce((total, t) => total + t.idf, 0);
  if (!pairs.length) return sum(open) + sum(common);
  const held = [...open, ...common];
  const bit = new Map(held.map((t, i) => [t, 1 << i]));
  const forbidden = pairs.filter(([a, b]) => bit.has(a) && bit.has(b)).map(([a, b]) => bit.get(a)! | bit.get(b)!);
  const someOpen = (1 << open.length) - 1;
  let best = Number.NEGATIVE_INFINITY;
  for (let set = 1; set < 1 << held.length; set++) {
    if (!(set & someOpen) || forbidden.some((pair) => (set & pair) === pair)) continue;
    best = Math.max(best, sum(held.filter((t) => set & bit.get(t)!)));
  }
  return best;
}

/**
 * Plans an exact top-k keyword scan (MaxScore pruning, written by hand because
 * Postgres' full-text search has no top-k by weighted terms). A row's score is
 * the summed weight of the query terms it holds; candidates are the rows
 * holding a generating term (one in at most COMMON_TERM_SHARE of the rows, or
 * any when none is that rare). Phases read the candidates in parts: first the
 * rows holding a rare generating term together with any other query term
 * (they outscore most others, and reading them first takes the other term's
 * weight out of every later bound), then by rarity. Each phase's `unreadBound` is the best score a candidate that no
 * phase so far read could still reach, so once `depth` rows read score above
 * it the later phases cannot change the list and are skipped.
 */
export function planKeywordScan(terms: KeywordTerm[], tableRows: number, options: KeywordPlanOptions): KeywordPlan | null {
  if (!terms.length) return null;
  const rare = terms.filter((t) => t.share <= COMMON_TERM_SHARE);
  const generating = (rare.length ? rare : terms).slice().sort((a, b) => a.share - b.share || (a.lexeme < b.lexeme ? -1 : a.lexeme > b.lexeme ? 1 : 0));
  const common = terms.filter((t) => !generating.includes(t));
  const rows = Math.max(tableRows, 0);

  // Pairs of a generating term with any other term that match at most pairRows estimated rows.
  const pairs: Array<[KeywordTerm, KeywordTerm]> = [];
  if (options.pairRows > 0 && terms.length >= 2 && terms.length <= MAX_PAIR_TERMS) {
    const ordered = [...generating, ...common];
    const pairShare = PAIR_SHARE[options.pairEstimate ?? 'rarer'];
    generating.forEach((a, i) => ordered.slice(i + 1).forEach((b) => pairShare(a, b) * rows <= options.pairRows && pairs.push([a, b])));
  }

  // Rarity phases: cumulative estimated rows against the bounds, rarest first.
  const groups: KeywordTerm[][] = Array.from({ length: options.phaseRows.length + 1 }, () => []);
  let estimated = 0;
  generating.forEach((term, rank) => {
    estimated += term.share * rows;
    const bound = options.phaseRows.findIndex((b) => estimated <= b);
    groups[rank === 0 ? 0 : bound === -1 ? options.phaseRows.length : bound].push(term);
  });

  const phases: KeywordPhase[] = [];
  const read: string[] = [];
  if (pairs.length) {
    const pairQuery = anyOf(pairs.map(([a, b]) => `(${tsqueryOperand(a.lexeme)} & ${tsqueryOperand(b.lexeme)})`));
    // Each pair's first term is the rarer one (or the only generating one): its postings hold the pair's rows.
    const firsts = [...new Set(pairs.map(([a]) => a.lexeme))];
    phases.push({ match: pairQuery, generators: firsts, readBefore: null, unreadBound: maxUnreadScore(generating, common, pairs) });
    read.push(pairQuery);
  }
  const readTerms = new Set<KeywordTerm>();
  for (const group of groups.filter((g) => g.length)) {
    const match = anyOf(group.map((t) => tsqueryOperand(t.lexeme)));
    group.forEach((t) => readTerms.add(t));
    const open = generating.filter((t) => !readTerms.has(t));
    phases.push({ match, generators: group.map((t) => t.lexeme), readBefore: read.length ? anyOf(read) : null, unreadBound: maxUnreadScore(open, common, pairs) });
    read.push(match);
  }
  return { terms, candidates: anyOf(generating.map((t) => tsqueryOperand(t.lexeme))), phases };
}
