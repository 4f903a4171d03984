import type { EntityType } from '../../domain/types.js';
import { canonicalName } from '../../domain/canonical.js';
import { isObjectControlled, type Clause, type Span } from './clauses.js';
import type { ObjectView } from './frames.js';
import { EMPHATIC_PHRASES, OTHER_PRONOUNS, EMPHATICS, HEDGE_PHRASES, HEDGES, OPINION_VERBS, PERSON_PRONOUNS, ROLE_NOUNS, SPEAKER_PLURAL_SUBJECT, SPEAKER_PRONOUNS } from './lexicon.js';
import type { Mention } from './mentions.js';
import { hasTag, surface, type Token } from './nlp.js';
import { relativeName } from './text.js';
import { DETERMINERS, FILLERS, HONORIFICS, MONEY_WORDS, NONE, PREP_WORDS, type Context, type Ref } from './context.js';

/**
 * What spans of a clause refer to: the speaker, a person (pronouns resolved to
 * the last person mentioned), a named entity, or a literal phrase; plus the
 * clause-level helpers (object segments, time phrase, confidence, subjects).
 */

// ---- referents ------------------------------------------------------------

export function speakerRef(ctx: Context): Ref {
  if (!ctx.speaker) return NONE;
  ctx.speakerUsed = true;
  const key = ctx.table.add(ctx.speaker, { type: 'person', fixedType: true, sure: true });
  return { kind: 'entity', key, person: true };
}

export function resolvePronoun(ctx: Context, s: number, t: number, word: string): Ref {
  const wantGender = /^(?:he|him|his|himself)$/.test(word) ? 'male' : /^(?:she|her|hers|herself)$/.test(word) ? 'female' : null;
  for (let k = ctx.persons.length - 1; k >= 0; k--) {
    const p = ctx.persons[k];
    if (p.s > s || (p.s === s && p.t >= t)) continue;
    if (wantGender && p.gender && p.gender !== wantGender) continue;
    ctx.table.vote(p.key, 'person');
    return { kind: 'entity', key: p.key, person: true };
  }
  return NONE;
}

/** The entity a relation mention names: "Ana" for "my sister Ana", "u1's sister" for "my sister". */
export function relationEntity(ctx: Context, s: number, m: Mention): { key: string; ownerKey: string | null } | null {
  let ownerKey: string | null = null;
  let ownerName: string | null = null;
  if (m.owner?.kind === 'speaker') {
    const r = speakerRef(ctx);
    if (r.kind === 'entity') ownerKey = r.key;
  } else if (m.owner?.kind === 'pronoun') {
    const r = resolvePronoun(ctx, s, m.start, ctx.sentences[s].tokens[m.owner.token].word);
    if (r.kind === 'entity') ownerKey = r.key;
  } else if (m.owner?.kind === 'name') {
    ownerKey = ctx.table.add(m.owner.name, { type: 'person', fixedType: false, sure: true });
    ctx.table.vote(ownerKey, 'person');
  }
  if (ownerKey) ownerName = ctx.table.nameOf(ownerKey);
  if (m.kind === 'pet' && !m.name) return null;
  const name = m.name ?? (ownerName ? relativeName(ownerName, m.relationWord ?? '', m.endedAs) : null);
  if (!name) return null;
  const key = ctx.table.add(name, { type: m.type, fixedType: true, sure: true, surface: m.surface });
  return { key, ownerKey };
}

export function mentionRef(ctx: Context, s: number, m: Mention): Ref {
  if (m.kind === 'name' && m.name) {
    const key = ctx.table.add(m.name, { type: m.type, fixedType: m.type !== null, sure: m.strong && !m.onlyIfUsed, surface: m.surface });
    return { kind: 'entity', key, person: ctx.table.typeOf(key) === 'person', mention: m };
  }
  const rel = relationEntity(ctx, s, m);
  if (!rel) return NONE;
  return { kind: 'entity', key: rel.key, person: m.kind === 'relation', mention: m };
}

export function trimSpan(tokens: Token[], span: Span): Span {
  let { start, end } = span;
  const skip = (t: Token) => t.time || !t.text && !t.word || FILLERS.has(t.word) || hasTag(t, 'Expression') || /^[^\p{L}\p{N}$€£]+$/u.test(t.text || t.word);
  while (start < end && skip(tokens[start])) start++;
  while (end > start && (skip(tokens[end - 1]) || hasTag(tokens[end - 1], 'Adverb') && end - 1 > start)) end--;
  // A time phrase in the middle ("Google last May to ...") splits nothing but is not part of the object.
  return { start, end };
}

export const isNounish = (t: Token) => hasTag(t, 'Noun', 'ProperNoun', 'Gerund', 'Value', 'Acronym') && !hasTag(t, 'Pronoun', 'Determiner');

/** Head of the first noun phrase: "insulin every day" → insulin, "a dog named Max" → dog. */
export function headOf(tokens: Token[]): string {
  let i = 0;
  while (i < tokens.length && !isNounish(tokens[i])) i++;
  if (i === tokens.length) {
    const last = tokens[tokens.length - 1];
    return last ? (last.root || last.word).toLowerCase() : '';
  }
  while (i + 1 < tokens.length && isNounish(tokens[i + 1]) && !/[,;]/.test(tokens[i].post)) i++;
  return (tokens[i].root || tokens[i].word).toLowerCase();
}

export const TRAILING_NOISE = new Set(['myself', 'yourself', 'himself', 'herself', 'itself', 'ourselves', 'themselves', 'personally', 'lol', 'haha', 'though', 'tho', 'too', 'so', 'yea', 'yeah', 'a', 'an', 'the', 'and', 'or', 'but']);

export function literalText(tokens: Token[]): string {
  const kept = tokens.filter((t) => !t.time && t.text);
  let i = 0;
  while (i < kept.length - 1 && DETERMINERS.has(kept[i].word)) i++;
  let j = kept.length;
  while (j > i + 1 && TRAILING_NOISE.has(kept[j - 1].word)) j--;
  return surface(kept.slice(i, j)).replace(/^[\s"'(]+|[\s"').,!?;:]+$/g, '');
}

/**
 * Literal values must read on their own: "improve my coding skills" said by Kevin
 * becomes "improve Kevin's coding skills"; "her" becomes the person it refers to.
 */
export function substitutePronouns(ctx: Context, s: number, tokens: Token[]): Token[] {
  return tokens.map((t) => {
    const w = t.word;
    let name: string | null = null;
    let possessive = false;
    if (SPEAKER_PRONOUNS.has(w) && ctx.speaker && t.text) {
      name = ctx.speaker;
      possessive = w === 'my';
    } else if (PERSON_PRONOUNS.has(w) && !/^(?:they|them|their|theirs|themselves)$/.test(w) && t.text) {
      const r = resolvePronoun(ctx, s, t.i, w);
      if (r.kind === 'entity') {
        name = ctx.table.nameOf(r.key);
        possessive = w === 'his' || (w === 'her' && hasTag(t, 'Possessive')) || w === 'hers';
      }
    }
    if (!name) return t;
    return { ...t, text: possessive ? `${name}'s` : name };
  });
}

/** Objects that carry no content of their own: "it", "this", "how the movie...", "what they did". */
export function emptyObject(part: Token[]): boolean {
  const first = part[0];
  if (!first) return true;
  if (hasTag(first, 'QuestionWord') || ['how', 'what', 'when', 'where', 'why', 'who', 'that', 'which', 'whatever', 'if', 'following', 'same', 'rest', 'other', 'others'].includes(first.word)) return true;
  return part.every((t) => hasTag(t, 'Pronoun') || DETERMINERS.has(t.word) || OTHER_PRONOUNS.has(t.word) || FILLERS.has(t.word));
}

/** What a span of a clause refers to: the speaker, a person, a named entity, or a literal phrase. */
export function interpret(ctx: Context, s: number, span: Span, role: 'subject' | 'object'): Ref {
  const tokens = ctx.sentences[s].tokens;
  const { start, end } = trimSpan(tokens, span);
  if (start >= end) return NONE;
  const part = tokens.slice(start, end).filter((t) => !t.time);
  if (part.length === 0) return NONE;
  if (part.length === 1 && hasTag(part[0], 'Pronoun')) {
    const w = part[0].word;
    if (SPEAKER_PRONOUNS.has(w) || (role === 'subject' && SPEAKER_PLURAL_SUBJECT.has(w))) return speakerRef(ctx);
    if (PERSON_PRONOUNS.has(w)) return resolvePronoun(ctx, s, part[0].i, w);
    return NONE;
  }
  // A mention covering the span's head (the last word) is what the span names.
  const lastIdx = part[part.length - 1].i;
  const m = ctx.mentions[s].find((x) => x.start <= lastIdx && x.end > lastIdx && x.start >= start - 1);
  // The mention must cover the span from its start ("the Aurora plan", "a dog named Max"),
  // not merely end it ("hiking with my dog Max" is about hiking).
  if (m && (m.start <= start || (m.start === start + 1 && (DETERMINERS.has(tokens[start].word) || HONORIFICS.has(tokens[start].word))))) return mentionRef(ctx, s, m);
  const inner = ctx.mentions[s].find((x) => x.start >= start && x.end <= end);
  if (inner && role === 'object' && part.length <= 4 && inner.kind === 'name' && (inner.start === start || DETERMINERS.has(tokens[start].word))) return mentionRef(ctx, s, inner);
  if (emptyObject(part)) return NONE;
  const head = headOf(part);
  // "The CEO lives in Kitchener", "reports to the CTO": a definite role noun names a person;
  // as a subject, a definite organization/product/project/event noun names one too.
  const isRoleHead = ROLE_NOUNS.has(head) || (hasTag(part[part.length - 1], 'Actor') && !hasTag(part[part.length - 1], 'Plural'));
  if (role === 'subject' || (isRoleHead && ['the', 'our'].includes(part[0].word) && part.length <= 3)) {
    const lead = part[0].word;
    // "your employer" belongs to the listener, whom the episode does not name.
    const definite = lead === 'the' || lead === 'this' || lead === 'that' || lead === 'our';
    // Only people: "the project" or "the company" alone would merge every project of a namespace into one node.
    const type: EntityType | null = isRoleHead ? 'person' : null;
    if (definite && type) {
      const nounStart = part.findIndex((t, k) => k > 0 && hasTag(t, 'Noun') && !DETERMINERS.has(t.word));
      const nameTokens = part.slice(nounStart > 0 ? nounStart : 1);
      const name = canonicalName(surface(nameTokens));
      const key = ctx.table.add(name, { type, fixedType: true, sure: false, surface: surface(part) });
      return { kind: 'entity', key, person: type === 'person' };
    }
  }
  return { kind: 'literal', text: literalText(substitutePronouns(ctx, s, part)), head, tokens: part };
}

export function viewOf(ctx: Context, ref: Ref): ObjectView {
  if (ref.kind === 'entity') {
    const type = ctx.table.typeOf(ref.key);
    const name = ctx.table.nameOf(ref.key);
    const words = name.toLowerCase().split(' ');
    // A named pet reads as its kind ("Max" → dog) for frames that test the head noun.
    const head = ref.mention?.kind === 'pet' && ref.mention.relationWord ? ref.mention.relationWord : words[words.length - 1];
    const possessive = ref.mention?.kind === 'name' && !!ref.mention.possessive;
    return { text: name, head, entityType: type, isEntity: true, hasMoney: false, hasNumber: /\d/.test(name), isPerson: ref.person || type === 'person', possessive };
  }
  if (ref.kind === 'literal') {
    return {
      text: ref.text,
      head: ref.head,
      entityType: null,
      isEntity: false,
      hasMoney: ref.tokens.some((t) => hasTag(t, 'Money', 'Currency')) || MONEY_WORDS.test(ref.text),
      hasNumber: ref.tokens.some((t) => hasTag(t, 'Value')),
      isPerson: false,
    };
  }
  return { text: '', head: '', entityType: null, isEntity: false, hasMoney: false, hasNumber: false, isPerson: false };
}

// ---- clause helpers --------------------------------------------------------

export interface Segment {
  prep: string;
  start: number;
  end: number;
}

/** A preposition, or "home" where the parse made it say where to ("came home from Lisbon": nlp.ts). */
const isPrepWord = (t: Token) => PREP_WORDS.has(t.word) || (t.word === 'home' && hasTag(t, 'Adverb'));

/** Split an object span at prepositions: "as a nurse at the hospital" → [as: a nurse] [at: the hospital]. */
export function segments(ctx: Context, s: number, span: Span): Segment[] {
  const tokens = ctx.sentences[s].tokens;
  const out: Segment[] = [];
  let prep = '';
  let start = span.start;
  let i = span.start;
  const inName = (k: number) => ctx.mentions[s].some((m) => m.kind === 'name' && k > m.start && k < m.end - 0);
  while (i < span.end) {
    const t = tokens[i];
    const isPrep = isPrepWord(t) && !t.time && !inName(i) && (hasTag(t, 'Preposition', 'Conjunction', 'Adverb', 'Particle') || t.word === 'to' || t.word === 'up' || t.word === 'out' || t.word === 'back' || t.word === 'away');
    if (!isPrep) {
      i++;
      continue;
    }
    if (i > start || prep) out.push({ prep, start, end: i });
    // Consecutive prepositions form one ("out of", "up for", "back to").
    let j = i;
    const words: string[] = [];
    while (j < span.end && isPrepWord(tokens[j]) && !tokens[j].time && words.length < 2) words.push(tokens[j++].word);
    if (tokens[j]?.word === 'of' && words.length < 3) words.push(tokens[j++].word);
    prep = words.join(' ');
    start = j;
    i = j;
  }
  if (span.end > start || prep) out.push({ prep, start, end: span.end });
  return out.filter((seg) => {
    const trimmed = trimSpan(tokens, seg);
    return trimmed.end > trimmed.start || seg.prep === '';
  });
}

export function clauseRange(clauses: Clause[], c: Clause): Span {
  const prev = c.index > 0 ? clauses[c.index - 1] : null;
  const start = prev ? Math.max(prev.object.end, prev.vg.end) : 0;
  return { start: Math.min(start, c.span.start), end: Math.max(c.object.end, c.vg.end) };
}

export function timeFor(ctx: Context, s: number, c: Clause): string | null {
  const range = clauseRange(ctx.clauses[s], c);
  const phrase = ctx.sentences[s].timePhrases.find((p) => p.start >= range.start && p.start < range.end);
  if (phrase) return phrase.text;
  // "I left Google last May to join Anthropic": the purpose clause shares the time.
  if (c.link === 'purpose' && c.parent !== null) return timeFor(ctx, s, ctx.clauses[s][c.parent]);
  return null;
}

export function confidenceFor(ctx: Context, s: number, c: Clause): number {
  const tokens = ctx.sentences[s].tokens;
  const range = clauseRange(ctx.clauses[s], c);
  let from = range.start;
  // "I think she works at Acme": the opinion verb of the parent clause hedges this one.
  if (c.link === 'complement' && c.parent !== null) from = clauseRange(ctx.clauses[s], ctx.clauses[s][c.parent]).start;
  // "last May" is a month, not a hedge.
  const words = tokens.slice(from, range.end).filter((t) => !t.time).map((t) => t.word);
  const text = ` ${words.join(' ')} `;
  if (words.some((w) => EMPHATICS.has(w)) || EMPHATIC_PHRASES.some((p) => text.includes(` ${p} `))) return 0.85;
  if (words.some((w) => HEDGES.has(w)) || HEDGE_PHRASES.some((p) => text.includes(` ${p} `)) || ['might', 'could', 'would', 'may'].includes(c.vg.modal ?? '')) return 0.5;
  if (c.link === 'complement' && c.parent !== null && OPINION_VERBS.has(ctx.clauses[s][c.parent].vg.root)) return 0.5;
  return 0.7;
}

/** The noun phrase that ends a span: "at the party with my sister" → "my sister". */
export function lastNounPhrase(tokens: Token[], span: Span): Span {
  let start = span.start;
  for (let i = span.end - 1; i >= span.start; i--) {
    if (PREP_WORDS.has(tokens[i].word) && !tokens[i].capitalized) {
      start = i + 1;
      break;
    }
  }
  return { start, end: span.end };
}

/** Subjects of a clause, following "and"/"to"/"who" links back to an explicit subject. */
export function subjectsOf(ctx: Context, s: number, c: Clause, depth = 0): Ref[] {
  const tokens = ctx.sentences[s].tokens;
  if (c.subject) {
    // "Emi and I": one referent per conjunct.
    const parts: Span[] = [];
    let from = c.subject.start;
    for (let i = c.subject.start; i < c.subject.end; i++) {
      if ((tokens[i].word === 'and' || tokens[i].word === '&') && i > from) {
        parts.push({ start: from, end: i });
        from = i + 1;
      }
    }
    parts.push({ start: from, end: c.subject.end });
    const refs = parts.map((p) => interpret(ctx, s, p, 'subject'));
    if (parts.length > 1 && refs.some((r) => r.kind !== 'entity')) return [interpret(ctx, s, c.subject, 'subject')];
    return refs;
  }
  // "Our CEO, who lives in Berlin": the relative clause is about the noun before "who".
  if (c.link === 'relative' && c.antecedent) {
    const ref = interpret(ctx, s, lastNounPhrase(ctx.sentences[s].tokens, c.antecedent), 'subject');
    if (ref.kind === 'entity') return [ref];
  }
  if (c.parent === null && dropsItsSubject(ctx, s, c)) return droppedSubject(ctx, s);
  if (c.parent === null || depth > 6) return [];
  const parent = ctx.clauses[s][c.parent];
  if (c.link === 'relative' || (c.link === 'purpose' && isObjectControlled(parent))) {
    const ref = interpret(ctx, s, parent.object, 'object');
    return ref.kind === 'entity' ? [ref] : c.link === 'relative' ? subjectsOf(ctx, s, parent, depth + 1) : [NONE];
  }
  return subjectsOf(ctx, s, parent, depth + 1);
}

/**
 * "Moved to Berlin last month.", "Just got back from Lisbon!", "Used to live in Paris.", "Was promoted to VP.": chat
 * drops the subject of a statement that opens with its verb. Only a past (or "used to") verb: a present one opening
 * a sentence is an order or a request ("Call Ana tomorrow."), and a question asks rather than tells.
 */
function dropsItsSubject(ctx: Context, s: number, c: Clause): boolean {
  return c.link === 'first' && c.span.start === 0 && !ctx.sentences[s].question && (c.vg.tense === 'past' || c.vg.ended);
}

/** Whom a dropped subject means: who the sentence before spoke of ("Ana moved to Berlin. Started at Stripe."), else the speaker. */
function droppedSubject(ctx: Context, s: number): Ref[] {
  const before = s > 0 ? ctx.clauses[s - 1].find((c) => c.subject) : undefined;
  const told = before ? subjectsOf(ctx, s - 1, before).filter((r) => r.kind === 'entity') : [];
  if (told.length) return told;
  const speaker = speakerRef(ctx);
  return speaker.kind === 'entity' ? [speaker] : [];
}
