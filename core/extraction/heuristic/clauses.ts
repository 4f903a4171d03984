import { hasTag, type Sentence, type Token } from './nlp.js';

/**
 * Shallow clause structure over compromise's tags: verb groups ("isn't",
 * "has been working", "started working", "used to live"), the subject span
 * before each and the object span after it. Clauses joined by "and", "but",
 * "to" (purpose) or "who" inherit their subject, so "Stefan left Premex and
 * now works at Acme" gives Stefan both verbs.
 */

export interface VerbGroup {
  start: number;
  end: number;
  head: Token;
  /** Lemma of the head verb ("works" → "work", "is" → "be"). */
  root: string;
  /** The verb the head complements: "start" in "started working", "want" in "want to join", "use" in "used to live". */
  catenative: string | null;
  negated: boolean;
  /** The state ended: "no longer", "not ... anymore", "used to". */
  ended: boolean;
  modal: string | null;
  tense: 'past' | 'present' | 'future';
  passive: boolean;
  /** "is going", "'m flying": a progressive head (a plan when the verb is a motion). */
  progressive: boolean;
  /** "have worked": the state still holds, unlike the simple past "worked". */
  perfect: boolean;
}

export type ClauseLink = 'first' | 'coordinate' | 'purpose' | 'complement' | 'relative' | 'subordinate';

export interface Span {
  start: number;
  end: number;
}

export interface Clause {
  sentence: Sentence;
  /** Position in the sentence's clause list. */
  index: number;
  vg: VerbGroup;
  /** Explicit subject tokens, or null when inherited from `parent`. */
  subject: Span | null;
  object: Span;
  link: ClauseLink;
  /** The word that opened the clause ("and", "to", "because", "who"). */
  linkWord: string | null;
  parent: number | null;
  /** First and last token the clause covers (subject through object). */
  span: Span;
  /** For "who/which/that" clauses: the noun phrase they describe ("Our CEO, who lives in Berlin"). */
  antecedent: Span | null;
}

const CLAUSE_WORDS = new Set([
  'and', 'but', 'or', 'so', 'because', 'cause', 'cuz', 'although', 'though', 'while', 'whereas', 'when', 'whenever', 'if',
  'unless', 'then', 'once', 'since', 'after', 'before', 'until', 'till', 'plus', 'yet', 'whether', 'where', 'as',
]);
const RELATIVE_WORDS = new Set(['who', 'which', 'that', 'whom']);
const COORDINATORS = new Set(['and', 'but', 'or', 'so', 'then', 'plus', 'yet']);
const VG_ADVERBS = new Set([
  'just', 'really', 'now', 'still', 'also', 'already', 'recently', 'finally', 'actually', 'never', 'always', 'even', 'only',
  'definitely', 'probably', 'maybe', 'currently', 'officially', 'no', 'longer', 'ever', 'usually', 'often', 'sometimes',
  'totally', 'absolutely', 'certainly', 'kinda', 'literally', 'seriously', 'honestly', 'basically', 'originally', 'soon', 'eventually',
]);
/** Verbs whose "-ing"/"to" complement is their object ("love hiking"), not part of the verb. */
const PREFERENCE_VERBS = new Set(['like', 'love', 'enjoy', 'hate', 'dislike', 'prefer', 'avoid', 'adore', 'miss', 'mind', 'detest', 'recommend', 'suggest', 'consider', 'imagine']);
const COMPLEMENT_VERBS = new Set([
  'think', 'believe', 'feel', 'guess', 'suppose', 'know', 'say', 'tell', 'hear', 'realize', 'realise', 'notice', 'hope', 'wish',
  'mean', 'reckon', 'bet', 'assume', 'doubt', 'learn', 'remember', 'forget', 'understand', 'agree', 'worry', 'expect', 'imagine',
  'promise', 'see', 'find', 'figure', 'swear', 'read', 'claim', 'admit',
]);
/** "asked us to stop": the object, not the subject, does the infinitive. */
const OBJECT_CONTROL = new Set(['ask', 'tell', 'want', 'need', 'allow', 'let', 'persuade', 'convince', 'remind', 'invite', 'encourage', 'force', 'get', 'help', 'beg', 'urge', 'expect', 'require']);
const MODALS = new Set(['will', 'would', 'could', 'should', 'might', 'may', 'can', 'must', 'shall', "'ll", "'d", 'wo', 'ca', 'gonna', 'wanna', 'gotta']);
const SUBJECT_PRONOUNS = new Set(['i', 'you', 'we', 'they', 'he', 'she', 'it']);
const NEVER_VERBS = new Set(['a', 'an', 'the', 'my', 'your', 'his', 'her', 'our', 'their', 'its', 'this', 'these', 'those', 'lot', 'bit']);
const DETERMINER_WORDS = new Set(['a', 'an', 'the', 'my', 'your', 'our', 'their', 'its']);
/** Demonstratives and pronouns that stand as a clause subject ("that's crappy"). */
const PRONOUN_SUBJECTS = new Set(['that', 'this', 'it', 'these', 'those', 'there']);

function isVerb(t: Token | undefined, prev: Token | undefined): boolean {
  if (!t || !t.text && !t.word) return false;
  // "moved out of": the particle belongs to the preposition, not to a new verb.
  if (t.time || (hasTag(t, 'Particle') && t.word !== 'to')) return false;
  if (t.word === 'like' || t.word === 'love') {
    // compromise tags "like" after "don't" as a preposition; "got like halfway", "morning, like 10:30" are fillers.
    if (!prev || /[,;:]/.test(prev.post) || hasTag(prev, 'Preposition', 'Determiner') || /^(?:get|got|gets|getting|was|is|be|been|feel|feels|felt|look|looks|looked|sound|sounds|seem|seems|her|him|them|me|us|it)$/.test(prev.word)) return false;
    if (hasTag(prev, 'Verb') && !hasTag(prev, 'Auxiliary', 'Modal', 'Copula')) return false;
    if (hasTag(t, 'Verb')) return true;
    return SUBJECT_PRONOUNS.has(prev.word) || hasTag(prev, 'Negative', 'Modal') || /^(?:do|does|did|would|will|really|also|just|still|always|totally|kinda|definitely|personally|actually|honestly)$/.test(prev.word);
  }
  // compromise sometimes tags the words after a gerund as verbs ("watching esports a lot").
  if (NEVER_VERBS.has(t.word) || (prev && DETERMINER_WORDS.has(prev.word))) return false;
  if (prev && hasTag(prev, 'Gerund') && !hasTag(prev, 'Auxiliary') && !hasTag(t, 'Auxiliary', 'Copula', 'Modal') && hasTag(t, 'PresentTense') && !hasTag(t, 'Infinitive')) return false;
  if (t.word === 'gonna' || t.word === 'wanna') return true;
  // "a dog named Max": a participle naming the noun before it, not a verb.
  if ((t.word === 'named' || t.word === 'called') && prev && hasTag(prev, 'Noun') && !hasTag(prev, 'Pronoun')) return false;
  if (hasTag(t, 'Verb') && !hasTag(t, 'Adjective') && !(hasTag(t, 'Noun') && !hasTag(t, 'Gerund', 'Infinitive', 'PastTense', 'PresentTense'))) return true;
  return hasTag(t, 'Modal', 'Auxiliary', 'Copula');
}

function isNegation(t: Token): boolean {
  return t.word === 'not' || t.word === 'never' || hasTag(t, 'Negative');
}

function isAux(t: Token): boolean {
  return hasTag(t, 'Auxiliary', 'Modal') || MODALS.has(t.word);
}

interface RawGroup {
  start: number;
  end: number;
}

/** Maximal runs of verbs with their adverbs, negations and "to"-infinitive complements. */
function findVerbGroups(tokens: Token[], blocked: ReadonlySet<number>): RawGroup[] {
  const groups: RawGroup[] = [];
  let i = 0;
  while (i < tokens.length) {
    if (blocked.has(i) || !isVerb(tokens[i], tokens[i - 1])) {
      i++;
      continue;
    }
    // A gerund never opens a verb group: it is a noun ("Hiking is fun", "love hiking", "into painting").
    if (hasTag(tokens[i], 'Gerund') && !hasTag(tokens[i], 'Auxiliary')) {
      i++;
      continue;
    }
    let start = i;
    while (start > 0 && (VG_ADVERBS.has(tokens[start - 1].word) || isNegation(tokens[start - 1])) && !tokens[start - 1].time) start--;
    let j = i + 1;
    let lastVerb = tokens[i];
    for (;;) {
      const t = tokens[j];
      if (!t || blocked.has(j)) break;
      const mainSoFar = !isAux(lastVerb) && lastVerb.root !== 'be' && lastVerb.root !== 'have' && lastVerb.root !== 'do' && lastVerb.root !== 'get';
      if (isVerb(t, tokens[j - 1])) {
        // "love hiking": the gerund is what is loved.
        if (hasTag(t, 'Gerund') && mainSoFar && PREFERENCE_VERBS.has(lastVerb.root)) break;
        // Two finite verbs in a row without a link belong to two clauses ("I think winter is").
        if (mainSoFar && !hasTag(t, 'Gerund', 'Infinitive', 'Participle') && !hasTag(lastVerb, 'Auxiliary')) break;
        lastVerb = t;
        j++;
        continue;
      }
      // "isn't", "is not": a negation right after the verb belongs to it.
      if (isNegation(t) && !t.time) {
        j++;
        continue;
      }
      if (VG_ADVERBS.has(t.word) && !t.time) {
        let k = j + 1;
        while (tokens[k] && (VG_ADVERBS.has(tokens[k].word) || isNegation(tokens[k]))) k++;
        if (isVerb(tokens[k], tokens[k - 1])) {
          j = k;
          continue;
        }
        break;
      }
      // "want to join", "used to live": the infinitive completes the verb group.
      if (t.word === 'to' && isVerb(tokens[j + 1], t) && hasTag(tokens[j + 1], 'Infinitive', 'PresentTense', 'Verb') && !hasTag(tokens[j + 1], 'Gerund', 'PastTense')) {
        lastVerb = tokens[j + 1];
        j += 2;
        continue;
      }
      break;
    }
    groups.push({ start, end: j });
    i = j;
  }
  return groups;
}

function describe(tokens: Token[], g: RawGroup, afterTokens: Token[]): VerbGroup {
  const inGroup = tokens.slice(g.start, g.end);
  const verbs = inGroup.filter((t, k) => isVerb(t, inGroup[k - 1]) && t.word !== 'to');
  // Head: the last verb that is not an auxiliary; a lone copula/auxiliary is its own head.
  let head = verbs[verbs.length - 1] ?? inGroup[inGroup.length - 1];
  for (let k = verbs.length - 1; k >= 0; k--) {
    if (!isAux(verbs[k]) || k === 0) {
      head = verbs[k];
      break;
    }
  }
  const headPos = verbs.indexOf(head);
  const before = verbs.slice(0, headPos);
  const mainBefore = [...before].reverse().find((t) => !isAux(t) && t.root !== 'be' && t.root !== 'have' && t.root !== 'do');
  let catenative: string | null = mainBefore ? mainBefore.root : null;
  const words = inGroup.map((t) => t.word);
  const modalTok = inGroup.find((t) => MODALS.has(t.word) || hasTag(t, 'Modal'));
  const modal = modalTok ? ({ "'ll": 'will', wo: 'will', "'d": 'would', ca: 'can' } as Record<string, string>)[modalTok.word] ?? modalTok.word : null;
  if (words.includes('used') && words.includes('to') && head.word !== 'used') catenative = 'use';
  if ((words.includes('going') || words.includes('gonna')) && head.word !== 'going' && head.word !== 'gonna') catenative = 'go';
  // "is not only a fantastic sport" is not a negation.
  const negated = inGroup.some((t) => isNegation(t)) && afterTokens[0]?.word !== 'only';
  // After a copula the words follow the group: "I'm no longer a nurse".
  const noLonger = words.some((w, k) => w === 'no' && words[k + 1] === 'longer') || (afterTokens[0]?.word === 'no' && afterTokens[1]?.word === 'longer');
  const anymore = afterTokens.some((t) => t.word === 'anymore' || (t.word === 'longer' && afterTokens.some((u) => u.word === 'any')));
  const ended = noLonger || (negated && anymore) || catenative === 'use';
  const passive = head.root !== 'be' && hasTag(head, 'PastTense', 'Participle', 'Passive') && before.some((t) => t.root === 'be' || t.root === 'get');
  let tense: VerbGroup['tense'] = 'present';
  if (modal === 'will' || catenative === 'go' || words.includes('gonna')) tense = 'future';
  else {
    // The finite (first) verb carries the tense: "is based" is present, "was based" past.
    const finite = verbs[0];
    if (finite && (['did', 'was', 'were', 'had', "'d", 'got'].includes(finite.word) ? finite.word !== "'d" : hasTag(finite, 'PastTense') && !['is', 'are', 'am', 'has', 'have'].includes(finite.word))) tense = 'past';
  }
  return {
    start: g.start,
    end: g.end,
    head,
    root: head.root,
    catenative: catenative === head.root ? null : catenative,
    negated: negated || noLonger,
    ended,
    modal,
    tense,
    passive,
    progressive: hasTag(head, 'Gerund') && before.some((t) => t.root === 'be'),
    perfect: before.some((t) => t.root === 'have' || t.word === 'have' || t.word === 'has' || t.word === "'ve"),
  };
}

function isBoundaryWord(t: Token): boolean {
  return CLAUSE_WORDS.has(t.word) || RELATIVE_WORDS.has(t.word);
}

function punctuationBreak(t: Token): boolean {
  // A period inside one compromise sentence follows an abbreviation ("Acme Corp. Acme is...").
  return /[,;:–—(.!?]|\s-\s/.test(t.post) && !hasTag(t, 'Honorific') && !/^\p{L}$/u.test(t.text);
}

function hasNominal(tokens: Token[], span: Span): boolean {
  for (let i = span.start; i < span.end; i++) {
    const t = tokens[i];
    if (t.time || VG_ADVERBS.has(t.word) || CLAUSE_WORDS.has(t.word)) continue;
    if (hasTag(t, 'Noun', 'Pronoun', 'ProperNoun', 'Value') || t.capitalized || PRONOUN_SUBJECTS.has(t.word)) return true;
  }
  return false;
}

export function buildClauses(sentence: Sentence, blocked: ReadonlySet<number> = new Set()): Clause[] {
  const tokens = sentence.tokens;
  const groups = findVerbGroups(tokens, blocked);
  const clauses: Clause[] = [];
  groups.forEach((g, k) => {
    const prevEnd = k > 0 ? groups[k - 1].end : 0;
    // The last clause boundary between the previous verb group and this one.
    let boundary = -1;
    // Where the previous clause's object stops (exclusive).
    let stopAt = -1;
    let linkWord: string | null = null;
    // "left Google to join Anthropic": a "to" infinitive after an object is a purpose clause.
    if (k > 0 && tokens[g.start - 1]?.word === 'to') {
      boundary = g.start;
      stopAt = g.start - 1;
      linkWord = 'to';
    }
    for (let i = g.start - 1; boundary < 0 && i >= prevEnd; i--) {
      // Before the first verb "and" joins nouns ("Emi and Kevin live"), not clauses.
      if (isBoundaryWord(tokens[i]) && !tokens[i].time && !(k === 0 && COORDINATORS.has(tokens[i].word))) {
        boundary = i + 1;
        stopAt = i;
        linkWord = tokens[i].word;
        break;
      }
      if (punctuationBreak(tokens[i])) {
        boundary = i + 1;
        stopAt = i + 1;
        linkWord = ',';
        break;
      }
    }
    let link: ClauseLink = k === 0 ? 'first' : 'coordinate';
    let subjectStart = boundary >= 0 ? boundary : prevEnd;
    if (k > 0 && boundary < 0) {
      const prev = clauses[k - 1];
      const between = { start: prevEnd, end: g.start };
      // "I think winter is awesome": the words between are the inner subject.
      if (COMPLEMENT_VERBS.has(prev.vg.root) && hasNominal(tokens, between)) link = 'complement';
      else {
        // Run-on chat ("I love the message it sends", "im not sure the one on the right is"):
        // a noun phrase opening after the previous verb's complement starts a new clause.
        let split = -1;
        for (let i = prevEnd + 1; i < g.start; i++) {
          const t = tokens[i];
          if (t.time) continue;
          if (SUBJECT_PRONOUNS.has(t.word) || ['the', 'this', 'that', 'these', 'those', 'my', 'his', 'her', 'our', 'their'].includes(t.word)) {
            split = i;
            break;
          }
        }
        if (split > 0) {
          subjectStart = split;
          boundary = split;
          stopAt = split;
        } else subjectStart = g.start;
      }
    }
    if (linkWord && RELATIVE_WORDS.has(linkWord)) {
      const complement = k > 0 && COMPLEMENT_VERBS.has(clauses[k - 1].vg.root);
      link = linkWord === 'that' && complement ? 'complement' : 'relative';
      // "I think that's crappy": "that" is the subject itself, not a link.
      if (linkWord === 'that' && complement && boundary === g.start) subjectStart = boundary - 1;
    } else if (linkWord === 'to') link = 'purpose';
    else if (linkWord && ['because', 'cause', 'cuz', 'although', 'though', 'while', 'whereas', 'when', 'whenever', 'if', 'unless', 'once', 'since', 'after', 'before', 'until', 'till', 'whether', 'where', 'as'].includes(linkWord)) link = 'subordinate';
    const subject: Span = { start: subjectStart, end: g.start };
    const clause: Clause = {
      sentence,
      index: k,
      vg: describe(tokens, g, tokens.slice(g.end)),
      subject: hasNominal(tokens, subject) ? subject : null,
      object: { start: g.end, end: tokens.length },
      link,
      linkWord,
      parent: k > 0 ? k - 1 : null,
      span: { start: subjectStart, end: tokens.length },
      antecedent: link === 'relative' ? { start: prevEnd, end: Math.max(prevEnd, stopAt) } : null,
    };
    if (k > 0) {
      // The previous clause's object stops where this clause's subject (or link word) starts.
      const prev = clauses[k - 1];
      const stop = boundary >= 0 ? stopAt : subjectStart;
      prev.object = { start: prev.object.start, end: Math.max(prev.object.start, link === 'complement' && boundary < 0 ? prev.vg.end : stop) };
      prev.span = { start: prev.span.start, end: Math.max(prev.object.end, prev.vg.end) };
    }
    clauses.push(clause);
  });
  return clauses;
}

/** Whether a purpose clause's implied subject is the previous clause's object ("asked us to stop"). */
export function isObjectControlled(prev: Clause): boolean {
  return OBJECT_CONTROL.has(prev.vg.root);
}
