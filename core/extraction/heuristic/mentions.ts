import nlp from 'compromise';
import type { EntityType } from '../../domain/types.js';
import { canonicalName } from '../../domain/canonical.js';
import { hasTag, surface, type Sentence, type Token } from './nlp.js';
import {
  EVENT_HEADS, NOT_NAMES, ORG_SUFFIXES, PET_NOUNS, PLACE_SUFFIXES, PLAN_HEADS, PLURAL_RELATIVES, PRODUCT_HEADS, PROJECT_HEADS,
  RELATION_PREDICATE, ROLE_NOUNS,
} from './lexicon.js';

/**
 * Named things in one sentence: proper-name sequences typed by compromise's
 * named-entity tags (Person, Place, Organization) or by their shape ("Acme
 * Corp", "the Aurora plan", "Project Phoenix"), and possessive relations
 * ("my sister Ana", "her boss", "my dog Max"). Months and weekdays are never
 * names (compromise tags "April," as a person in some contexts).
 */

export type Owner = { kind: 'speaker' } | { kind: 'pronoun'; token: number } | { kind: 'name'; name: string } | { kind: 'clause' };

export interface Mention {
  start: number;
  end: number;
  kind: 'name' | 'relation' | 'pet';
  /** Canonical entity name; null for an unnamed relation ("my sister") named later from its owner. */
  name: string | null;
  /** As written, e.g. "The Aurora plan", "my sister Ana". */
  surface: string;
  type: EntityType | null;
  /** Sure to be a name (a tag or a capital mid-sentence), not a capitalized sentence opener. */
  strong: boolean;
  gender: 'male' | 'female' | null;
  /** Only surfaced as an entity when a fact uses it (plans are usually values: "the Advanced plan"). */
  onlyIfUsed: boolean;
  owner?: Owner;
  /** "sister", "boss", "dog". */
  relationWord?: string;
  relationPredicate?: string;
  /** "my ex-wife": the relation is over. */
  ended?: boolean;
  /** How it is over: "ex-wife", "former boss" (ex), "late husband" (late): an unnamed one is named so. */
  endedAs?: 'ex' | 'late';
  /** The name inside a relation ("Ana" in "my sister Ana"). */
  inner?: Mention;
  /** Written as someone's ("Bo's team", "Bo's"). */
  possessive?: boolean;
}

const LEXICON = (nlp.model() as { one?: { lexicon?: Record<string, unknown> } }).one?.lexicon ?? {};
const NAME_BLOCK_TAGS = ['Date', 'Month', 'WeekDay', 'Pronoun', 'Determiner', 'Preposition', 'Conjunction', 'QuestionWord', 'Expression', 'Negative', 'Modal', 'Auxiliary', 'Copula', 'Possessive'];
const NER_TAGS = ['Person', 'Place', 'Organization', 'FirstName', 'LastName', 'Honorific', 'City', 'Country', 'Region'];
const CONNECTORS = new Set(['of', '&', 'de', 'van', 'von', 'da', 'del', 'della', 'di', 'du', 'la', 'le', 'y']);
export const POSSESSIVE_PRONOUNS: Record<string, Owner['kind']> = { my: 'speaker', our: 'speaker', his: 'pronoun', her: 'pronoun', their: 'pronoun' };
export const RELATION_ADJECTIVES = new Set(['best', 'older', 'younger', 'little', 'big', 'baby', 'twin', 'new', 'old', 'eldest', 'oldest', 'youngest', 'ex', 'late', 'step', 'dear', 'lovely', 'favorite', 'favourite', 'only', 'current', 'former', 'close', 'good', 'great']);
const NAMING_WORDS = new Set(['named', 'called']);

function bareWord(t: Token): string {
  return t.word.replace(/'s$/, '');
}

function isSentenceOpener(tokens: Token[], i: number): boolean {
  for (let k = 0; k < i; k++) if (!hasTag(tokens[k], 'Expression') && !NOT_NAMES.has(bareWord(tokens[k]))) return false;
  return true;
}

/** 'strong' for a sure name token, 'weak' for a capitalized unknown sentence opener, null otherwise. */
function nameStrength(tokens: Token[], i: number, shouting: boolean): 'strong' | 'weak' | null {
  const t = tokens[i];
  if (!t || !t.text || t.time || !t.capitalized) return null;
  const w = bareWord(t);
  if (w === 'i' || NOT_NAMES.has(w)) return null;
  if (hasTag(t, ...NAME_BLOCK_TAGS) && !(hasTag(t, 'Possessive') && hasTag(t, 'ProperNoun', 'Person', 'Noun') && t.text.endsWith("'s"))) return null;
  if (ROLE_NOUNS.has(w) && !hasTag(t, 'Person')) return null;
  if (hasTag(t, ...NER_TAGS)) return 'strong';
  if (shouting) return null;
  const opener = isSentenceOpener(tokens, i);
  if (hasTag(t, 'Verb', 'Adjective', 'Adverb') && !hasTag(t, 'ProperNoun')) return null;
  if (!opener) return hasTag(t, 'ProperNoun', 'Noun', 'Acronym') ? 'strong' : null;
  // A capitalized first word is a name only if compromise does not know it as a common word.
  return !(w in LEXICON) && hasTag(t, 'Noun', 'ProperNoun') && !hasTag(t, 'Plural', 'Gerund') ? 'weak' : null;
}

function typeFromTokens(tokens: Token[]): EntityType | null {
  const words = tokens.map(bareWord);
  const first = words[0];
  const last = words[words.length - 1];
  // "Web Summit", "Phoenix Project", "Pro Plan": a typed head word inside the name.
  if (words.length > 1 && EVENT_HEADS.has(last)) return 'event';
  if (words.length > 1 && PROJECT_HEADS.has(last)) return 'project';
  if (words.length > 1 && PRODUCT_HEADS.has(last)) return 'product';
  if (ORG_SUFFIXES.has(last) || (ORG_SUFFIXES.has(first) && words.length > 1 && words.includes('of'))) return 'organization';
  if (tokens.some((t) => hasTag(t, 'Organization'))) return 'organization';
  // "Jordan Peele": a first name opening a multi-word name makes a person, even when it is also a country.
  if (tokens.length > 1 && hasTag(tokens[0], 'FirstName') && !PLACE_SUFFIXES.has(last)) return 'person';
  if (tokens.some((t) => hasTag(t, 'Person', 'FirstName', 'LastName', 'Honorific')) && !tokens.some((t) => hasTag(t, 'Place'))) return 'person';
  if (PLACE_SUFFIXES.has(last) || tokens.some((t) => hasTag(t, 'Place', 'City', 'Country', 'Region'))) return 'place';
  if (tokens.some((t) => hasTag(t, 'Person', 'FirstName', 'LastName'))) return 'person';
  return null;
}

function genderOf(tokens: Token[]): Mention['gender'] {
  if (tokens.some((t) => hasTag(t, 'FemaleName'))) return 'female';
  if (tokens.some((t) => hasTag(t, 'MaleName'))) return 'male';
  return null;
}

function scanNames(sentence: Sentence): Mention[] {
  const tokens = sentence.tokens;
  const letters = tokens.filter((t) => /\p{L}{2,}/u.test(t.text));
  const shouting = letters.length >= 3 && letters.filter((t) => t.text === t.text.toUpperCase()).length / letters.length > 0.6;
  const out: Mention[] = [];
  let i = 0;
  while (i < tokens.length) {
    const strength = nameStrength(tokens, i, shouting);
    // "Project Phoenix": compromise reads the capitalized "Project" as a verb.
    const projectLead = tokens[i].capitalized && tokens[i].word === 'project' && nameStrength(tokens, i + 1, shouting) !== null;
    if (!strength && !projectLead) {
      i++;
      continue;
    }
    const start = i;
    let end = i + 1;
    let strong = strength === 'strong' || projectLead;
    while (end < tokens.length) {
      const prevTok = tokens[end - 1];
      if (prevTok.text.endsWith("'s")) break;
      // "Acme Corp. Acme is...": a name does not run across a sentence period (but "Dr. Smith", "J. Doe" do).
      if (/[.!?]\s/.test(prevTok.post) && !hasTag(prevTok, 'Honorific') && !/^\p{L}$/u.test(prevTok.text)) break;
      if (/[:;,()"]/.test(prevTok.post)) break;
      const s = nameStrength(tokens, end, shouting);
      if (s) {
        strong = strong || s === 'strong';
        end++;
        continue;
      }
      if (CONNECTORS.has(tokens[end].word) && nameStrength(tokens, end + 1, shouting) && !/[,;]/.test(tokens[end - 1].post)) {
        end += 2;
        continue;
      }
      // "Model 3", "Windows 11": a number that is part of a product name.
      if (hasTag(tokens[end], 'Value') && !hasTag(tokens[end], 'Date', 'Year', 'Money') && !tokens[end].time && /^\d{1,3}$/.test(tokens[end].text)) {
        end++;
        continue;
      }
      break;
    }
    let nameTokens = tokens.slice(start, end);
    let type = typeFromTokens(nameTokens);
    let onlyIfUsed = false;
    let spanStart = start;
    let spanEnd = end;
    const next = tokens[end];
    const lastName = tokens[end - 1];
    // "the Aurora plan", "the Phoenix project", "the Web Summit conference": a typed head noun.
    if (next && !next.capitalized && !next.time && hasTag(next, 'Noun') && !hasTag(next, 'Verb') && !lastName.text.endsWith("'s") && !/[,;]/.test(lastName.post)) {
      const head = next.root || next.word;
      const headType: EntityType | null = PRODUCT_HEADS.has(head) ? 'product' : PROJECT_HEADS.has(head) ? 'project' : EVENT_HEADS.has(head) ? 'event' : null;
      if (headType && !hasTag(lastName, 'Person')) {
        type = headType;
        onlyIfUsed = PLAN_HEADS.has(head);
        spanEnd = end + 1;
        nameTokens = tokens.slice(start, spanEnd);
      }
    }
    if (projectLead) type = 'project';
    // "The Hague", "Dr. Smith": the determiner or title stays in the surface form (an alias), not in the name.
    if (tokens[start - 1]?.word === 'the' || (tokens[start - 1] && /^(?:mr|mrs|ms|miss|dr|prof|sir|mx)$/.test(tokens[start - 1].word))) spanStart = start - 1;
    const name = canonicalName(surface(nameTokens));
    if (name && /\p{L}/u.test(name)) {
      out.push({
        start: spanStart,
        end: spanEnd,
        kind: 'name',
        name,
        surface: surface(tokens, spanStart, spanEnd).replace(/'s$/, ''),
        type,
        strong,
        gender: genderOf(nameTokens),
        onlyIfUsed,
        ...(/'s$/.test(tokens[spanEnd - 1].text) ? { possessive: true } : {}),
      });
    }
    i = Math.max(spanEnd, i + 1);
  }
  return out;
}

function ownerAt(tokens: Token[], i: number, names: Mention[]): Owner | null {
  const t = tokens[i];
  // "a dog named Max": owned by whoever the clause says has it.
  if ((t.word === 'a' || t.word === 'an') && tokens.slice(i + 1, i + 5).some((x) => NAMING_WORDS.has(x.word))) return { kind: 'clause' };
  const kind = POSSESSIVE_PRONOUNS[t.word];
  if (kind === 'speaker') return { kind: 'speaker' };
  if (kind === 'pronoun') return { kind: 'pronoun', token: i };
  if (t.text.endsWith("'s")) {
    const m = names.find((n) => n.end === i + 1 && n.name);
    if (m?.name) return { kind: 'name', name: m.name };
  }
  return null;
}

function scanRelations(sentence: Sentence, names: Mention[]): Mention[] {
  const tokens = sentence.tokens;
  const out: Mention[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const owner = ownerAt(tokens, i, names);
    if (!owner) continue;
    let r = i + 1;
    let ended = false;
    let late = false;
    while (r < tokens.length && r <= i + 3 && (RELATION_ADJECTIVES.has(tokens[r].word) || (hasTag(tokens[r], 'Adjective') && !RELATION_PREDICATE[tokens[r].word]))) {
      if (tokens[r].word === 'ex' || tokens[r].word === 'former' || tokens[r].word === 'late') ended = true;
      if (tokens[r].word === 'late') late = true;
      r++;
    }
    let rel = tokens[r];
    let word = rel ? rel.word.replace(/^ex-/, '') : '';
    let singular = rel?.root && (RELATION_PREDICATE[rel.root] || PET_NOUNS.has(rel.root)) ? rel.root : word;
    // "my ex" alone ("Tom is my ex", "my ex lives in Berlin") is an ex-partner.
    if (r > i + 1 && tokens[r - 1].word === 'ex' && !RELATION_PREDICATE[word] && !RELATION_PREDICATE[singular] && !PET_NOUNS.has(singular)) {
      r--;
      rel = tokens[r];
      word = singular = 'partner';
    }
    if (!rel || rel.time) continue;
    const predicate = RELATION_PREDICATE[word] ?? RELATION_PREDICATE[singular];
    const isPet = PET_NOUNS.has(word) || PET_NOUNS.has(singular);
    if (!predicate && !isPet) continue;
    if (rel.word.startsWith('ex-')) ended = true;
    const group = PLURAL_RELATIVES.has(word);
    const plural = hasTag(rel, 'Plural') && !group;
    // An optional name: "my sister Ana", "my dog named Max".
    let nameStart = r + 1;
    if (tokens[nameStart] && NAMING_WORDS.has(tokens[nameStart].word)) nameStart++;
    const inner = names.find((n) => n.start === nameStart && n.type !== 'place' && n.type !== 'organization');
    if ((plural || owner.kind === 'clause') && !inner) continue;
    const end = inner ? inner.end : r + 1;
    // Or said by a copula: "my sister is Ana.", "my sister's name is Ana." (the name alone ends the clause).
    const named = inner || plural ? null : copulaName(tokens, r, names, isPet);
    const relationWord = isPet || !group ? singular : word;
    out.push({
      start: i,
      end,
      kind: isPet ? 'pet' : 'relation',
      name: inner?.name ?? named?.name ?? null,
      surface: surface(tokens, i, end),
      type: isPet ? 'other' : 'person',
      strong: true,
      gender: inner?.gender ?? named?.gender ?? null,
      onlyIfUsed: false,
      owner,
      relationWord,
      relationPredicate: isPet ? 'owns' : predicate,
      ended,
      ...(ended ? { endedAs: late ? 'late' : 'ex' } : {}),
      inner,
    });
    i = end - 1;
  }
  return out;
}

const CLAUSE_ENDS = new Set(['and', 'but', 'so', 'who', 'because', 'since']);

/**
 * The name a copula gives a relation word: "sister is Ana", "sister's name is Ana" (tokens from the relation word);
 * a pet's only as its name ("my dog's name is Max": "my dog is Max" may be a comparison).
 */
function copulaName(tokens: readonly Token[], r: number, names: Mention[], isPet: boolean): Mention | null {
  let at = r + 1;
  if (tokens[r].text.endsWith("'s") && tokens[at]?.word === 'name') at++;
  else if (isPet) return null;
  if (tokens[at]?.word !== 'is' && tokens[at]?.word !== 'was') return null;
  const name = names.find((n) => n.start === at + 1 && n.name && n.type !== 'place' && n.type !== 'organization');
  if (!name || (name.end < tokens.length && !CLAUSE_ENDS.has(tokens[name.end].word))) return null;
  return name;
}

/** All mentions of a sentence, relations first where they overlap a bare name. */
export function scanMentions(sentence: Sentence): Mention[] {
  const names = scanNames(sentence);
  const relations = scanRelations(sentence, names);
  // Names inside a relation are absorbed by it, except its owner ("Giulia" in "Giulia's sister").
  const free = names.filter((n) => !relations.some((r) => r.inner === n || (n.start >= r.start && n.end <= r.end && n.end !== r.start + 1)));
  return [...relations, ...free].sort((a, b) => a.start - b.start);
}
