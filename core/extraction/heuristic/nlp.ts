import nlp from 'compromise';
import { findTimeExpressions } from '../../domain/temporal.js';

/**
 * One pass of compromise over the text, flattened into plain tokens the rest
 * of the extractor reads: sentence split, part-of-speech tags, verb/noun roots
 * (lemmas), expanded contractions ("isn't" → is + not), and which tokens belong
 * to a time phrase (found with chrono-node via the temporal domain module).
 */

export interface Token {
  /** Position in the sentence. */
  i: number;
  /** Surface text without surrounding punctuation ("" for the hidden half of a contraction). */
  text: string;
  /** Lower-case word with contractions expanded ("n't" → "not", "'m" → "am"). */
  word: string;
  /** Lemma: verbs in the infinitive ("left" → "leave", "is" → "be"), plural nouns singular. */
  root: string;
  tags: ReadonlySet<string>;
  /** Punctuation/space after the token, as written. */
  post: string;
  /** Starts with a capital letter (or has inner capitals: "iPhone", "IBM"). */
  capitalized: boolean;
  /** Part of a time phrase ("last month", "since March"). */
  time: boolean;
}

export interface TimePhrase {
  text: string;
  start: number; // first token index
  end: number; // token index after the last
}

export interface Sentence {
  index: number;
  tokens: Token[];
  timePhrases: TimePhrase[];
  question: boolean;
}

/** The fields of a compromise term we read (its `Term` type is not exported by the package). */
interface CompromiseTerm {
  text: string;
  pre: string;
  post: string;
  normal: string;
  tags?: Set<string>;
  implicit?: string;
  root?: string;
  /** [sentence, term] in the document. */
  index?: [number, number];
}

const COPULA = new Set(['is', 'am', 'are', 'was', 'were', "'s", "'re", "'m", 'be', 'been', 'being']);

/**
 * "Back from Lisbon!", "Just home from Tokyo.": a return said without "I'm" (compromise reads "back" as a verb), and
 * "I'm just back from" (an adverb between the copula and "back" makes it a noun): both read as "I'm back from".
 */
const SUBJECTLESS_RETURN = /(^|[.!?]\s+)(?:(?:just|finally)\s+)?(back|home)(\s+home)?(\s+from)\b/gi;
const ADVERB_BEFORE_RETURN = /\b(?:just|finally)\s+(?=(?:back|home)(?:\s+home)?\s+from\b)/gi;

function normalizeInput(text: string): string {
  // Curly apostrophes confuse contraction handling; zero-width and odd spaces confuse offsets.
  return text
    .normalize('NFKC')
    .replace(/[’‘`]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[\u200b\u00a0]/g, ' ')
    .replace(SUBJECTLESS_RETURN, (_, start: string, word: string, home = '', from: string) => `${start}I'm ${`${word}${home}`.toLowerCase()}${from}`)
    .replace(ADVERB_BEFORE_RETURN, '');
}

function rootOf(term: CompromiseTerm, word: string): string {
  const r = (term.root ?? word).toLowerCase();
  if (COPULA.has(r) || COPULA.has(word)) return term.tags?.has('Copula') || COPULA.has(word) ? 'be' : r;
  if (word === 'has' || word === 'had' || word === "'ve" || word === "'d") return word === "'d" ? 'would' : 'have';
  // compromise tags the "got" of a get-passive ("got promoted") as an auxiliary and gives it no lemma.
  if (word === 'got' || word === 'gotten') return 'get';
  return r;
}

function toTokens(terms: CompromiseTerm[]): { tokens: Token[]; text: string; offsets: number[] } {
  const tokens: Token[] = [];
  const offsets: number[] = [];
  let text = '';
  terms.forEach((term, i) => {
    text += term.pre;
    offsets.push(text.length);
    text += term.text + term.post;
    const word = (term.implicit ?? term.normal ?? term.text).toLowerCase();
    const tags = term.tags ?? new Set<string>();
    tokens.push({
      i,
      text: term.text,
      word: word === "n't" ? 'not' : word,
      root: rootOf(term, word),
      tags,
      post: term.post,
      capitalized: /^\p{Lu}/u.test(term.text) || /^\p{Ll}+\p{Lu}/u.test(term.text),
      time: false,
    });
  });
  return { tokens, text, offsets };
}

const RECURRENCE = /^(?:every|each)\b/i;
const RECURRING_DAYS = /^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days|weekends)$/i;

function markTimePhrases(tokens: Token[], text: string, offsets: number[]): TimePhrase[] {
  const phrases: TimePhrase[] = [];
  for (const expr of findTimeExpressions(text)) {
    const from = expr.index;
    const to = expr.index + expr.text.length;
    let start = -1;
    let end = -1;
    tokens.forEach((t, i) => {
      const a = offsets[i];
      const b = a + Math.max(t.text.length, 1);
      if (a < to && from < b) {
        if (start < 0) start = i;
        end = i + 1;
      }
    });
    if (start < 0) continue;
    for (let i = start; i < end; i++) tokens[i].time = true;
    // "every Friday", "each summer": a habit, no date a fact happened on ("visited Tokyo Friday" misled).
    const every = start > 0 && RECURRENCE.test(tokens[start - 1].word);
    if (every) tokens[start - 1].time = true;
    if (every || RECURRENCE.test(expr.text)) continue;
    phrases.push({ text: expr.text, start, end });
  }
  // "on Mondays", "at weekends": a habit's time (chrono reads no date in them), never a thing worked on or visited.
  for (const t of tokens) if (RECURRING_DAYS.test(t.word)) t.time = true;
  return phrases;
}

/**
 * compromise tags a past-tense verb whose subject is left out after "and" as
 * an adjective ("I left Initech and joined Hooli", "moved to Porto and joined
 * Hooli"), so the second clause was lost or read as the first one's object
 * ("moved to joined Hooli"). After a verb, an "-ed" word so tagged between a
 * coordinator and what can only be its object is the verb. Not after an
 * adjective ("a red and painted door"), nor before anything else ("tired and
 * bored").
 */
function retagCoordinatedPastTense(doc: ReturnType<typeof nlp>): void {
  retagWhere(doc, '(and|but|then) [#Adjective] (#ProperNoun|#Determiner|#Possessive)', 'PastTense', (term, terms, i) =>
    /ed$/i.test(term.text) && i >= 2 && !terms[i - 2].tags?.has('Adjective') && terms.slice(0, i - 1).some((t) => t.tags?.has('Verb')));
}

/**
 * Tags the first term each match of `pattern` captures with `tag`, where `keep` accepts it, reading the term in its
 * sentence (`terms`, at index `i`).
 */
function retagWhere(doc: ReturnType<typeof nlp>, pattern: string, tag: string, keep: (term: CompromiseTerm, terms: CompromiseTerm[], i: number) => boolean): void {
  const sentences = (doc as unknown as { document: CompromiseTerm[][] }).document;
  doc
    .match(pattern, 0)
    .filter((m) => {
      const term = (m.docs as unknown as CompromiseTerm[][])[0][0];
      const [n, i] = term.index ?? [-1, -1];
      return keep(term, sentences[n] ?? [], i);
    })
    .tag(tag);
}

// Verbs whose object can be a clause ("I think music plays"): the word after their noun may be that clause's verb.
const CLAUSE_TAKING = new Set(['think', 'know', 'believe', 'say', 'said', 'hear', 'heard', 'guess', 'hope', 'feel', 'felt', 'see', 'saw', 'notice', 'mean', 'wish', 'bet', 'suppose', 'realize', 'learn', 'find', 'found', 'tell', 'told', 'show']);

/**
 * compromise tags the plural head of a compound object as a verb ("I prefer
 * window seats", "aisle seats on long flights"), so the object lost its head
 * and the fact read "prefers window". After a verb and a common singular
 * noun, an "-s" word that ends the phrase (a preposition, a conjunction or
 * the sentence's end follows) is a plural noun. Not after a verb that takes
 * a clause ("I know the team wins").
 */
function retagCompoundPlural(doc: ReturnType<typeof nlp>): void {
  retagWhere(doc, '#Verb #Adjective? (#Singular && !#ProperNoun && !#Pronoun) [#PresentTense]', 'Plural', (term, terms, i) => {
    const verb = terms.slice(0, i).findLast((t) => t.tags?.has('Verb'));
    const next = terms[i + 1];
    const endsPhrase = !next || /[,;:.!?]/.test(term.post) || !!next.tags?.has('Preposition') || !!next.tags?.has('Conjunction');
    return /[^s]s$/i.test(term.text) && endsPhrase && !!verb && !CLAUSE_TAKING.has(verb.normal) && !verb.tags?.has('Copula');
  });
}

/**
 * compromise tags "got" before a particle as a passive auxiliary ("got fired"), so "I just got back from Tokyo" had
 * no main verb and said nothing. Before "back", "home" or "away", "got" is the verb. Each match is tried only when
 * its word is in the text: the three cost a tenth of a parse, on every episode.
 */
function retagGetParticle(doc: ReturnType<typeof nlp>, text: string): void {
  if (/\bgot(?:ten)?\b/i.test(text)) doc.match('[(got|gotten)] (back|home|away)', 0).unTag('Auxiliary').tag('PastTense');
  if (!/\bhome\b/i.test(text)) return;
  // "got home late", "came home from Lisbon": right after a verb of motion, "home" says where to, it is no thing owned.
  doc.match('(get|got|gets|getting|come|came|comes|coming|arrive|arrived|fly|flew|drive|drove|walk|walked|head|headed|go|went|going) [home]', 0).unTag('Noun').tag('Adverb');
  // "I'm home from Tokyo": after a copula, "home" before "from" is where they are back.
  doc.match('#Copula [home] from', 0).unTag('Noun').tag('Adverb');
}

/**
 * compromise reads "living" after "was" as an adjective ("was living" as in "was alive"), so "I was living in Rome"
 * had no verb but "was" and read as a visit. Before a preposition of place it is the progressive of "live", as
 * "I am living in Rome" already parses.
 */
function retagLivingAfterCopula(doc: ReturnType<typeof nlp>, text: string): void {
  if (!/\bliving\b/i.test(text)) return;
  doc.match('[#Copula] #Adverb? living (in|at|near|outside|with)', 0).tag('Auxiliary');
  doc.match('#Copula #Adverb? [living] (in|at|near|outside|with)', 0).unTag('Adjective').tag('Gerund');
}

function parseUncached(text: string): Sentence[] {
  const normalized = normalizeInput(text);
  const doc = nlp(normalized);
  retagCoordinatedPastTense(doc);
  retagCompoundPlural(doc);
  retagGetParticle(doc, normalized);
  retagLivingAfterCopula(doc, normalized);
  doc.compute('root');
  return (doc.docs as unknown as CompromiseTerm[][]).map((terms, index) => {
    const { tokens, text: sentenceText, offsets } = toTokens(terms);
    const timePhrases = markTimePhrases(tokens, sentenceText, offsets);
    return { index, tokens, timePhrases, question: /\?\s*$/.test(sentenceText) };
  });
}

// The entity and fact stages parse the same episode back to back: keep the last few parses.
const CACHE_LIMIT = 64;
const cache = new Map<string, Sentence[]>();

export function parseText(text: string): Sentence[] {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const parsed = parseUncached(text);
  cache.set(text, parsed);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return parsed;
}

export function hasTag(t: Token | undefined, ...tags: string[]): boolean {
  return !!t && tags.some((tag) => t.tags.has(tag));
}

/** Surface text of tokens [start, end), keeping inner punctuation such as the hyphen in "follow-ups". */
export function surface(tokens: readonly Token[], start = 0, end = tokens.length): string {
  let out = '';
  for (let i = start; i < end; i++) {
    const t = tokens[i];
    if (!t.text) continue;
    out += t.text;
    if (i < end - 1) out += /^[-/&+']+$/.test(t.post.trim()) ? t.post.trim() : t.post.includes(' ') || t.post.length > 0 ? ' ' : '';
  }
  return out.replace(/\s+/g, ' ').trim();
}
