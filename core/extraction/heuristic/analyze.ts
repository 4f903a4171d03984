import { pointsAhead } from '../../domain/temporal.js';
import { buildClauses, type Clause } from './clauses.js';
import { EntityTable } from './entities.js';
import { OPINION_VERBS, ROLE_NOUNS, SPEAKER_PLURAL_SUBJECT, SPEAKER_PRONOUNS } from './lexicon.js';
import { scanMentions, type Mention } from './mentions.js';
import { hasTag, parseText, type Sentence } from './nlp.js';
import { emit, type Analysis, type Context, type FactDraft, type Ref } from './context.js';
import { confidenceFor, headOf, interpret, relationEntity, speakerRef, subjectsOf, timeFor, trimSpan } from './referents.js';
import { factsFromFrame, matchFrames } from './matching.js';
import { IRREALIS, NON_FACTUAL, TRANSITION_VERBS, birth, contactPreference, death, copulaDescription, habitAvoided, intention, marriage, retirement, namedRelative, passiveAgent, possessiveCopula, relativeHad, schoolStarted, statusChange, viewpoint } from './constructions.js';

/**
 * The heuristic extractor's single pass over an episode: parse once, find
 * mentions and clauses, resolve pronouns, match clauses against the predicate
 * table, and collect entity candidates and fact drafts. Both provider stages
 * read the same (memoized) analysis, so an episode is parsed once.
 */

// "I might move to Denver", "I could live in Oslo", "I should call Ana": a possibility, not a fact ("would like" is a wish, read before).
const POSSIBILITY_MODALS = new Set(['might', 'may', 'could', 'would', 'should']);

function processClause(ctx: Context, s: number, c: Clause): void {
  const sentence = ctx.sentences[s];
  if (sentence.question) return;
  if (c.link === 'subordinate' && ['if', 'unless', 'whether'].includes(c.linkWord ?? '')) return;
  // "I wish I had a car", "I don't think she works there": not statements of fact.
  if (c.link === 'complement' && c.parent !== null) {
    const parent = ctx.clauses[s][c.parent].vg;
    if (IRREALIS.has(parent.root) || (parent.negated && OPINION_VERBS.has(parent.root))) return;
  }
  const confidence = confidenceFor(ctx, s, c);
  if (contactPreference(ctx, s, c, confidence)) return;
  // "convinced me to try to get a cat": a purpose is not a fact, except after a move ("left Google to join Anthropic").
  if (c.link === 'purpose' && c.parent !== null && !TRANSITION_VERBS.has(ctx.clauses[s][c.parent].vg.root)) return;
  if (c.vg.catenative && NON_FACTUAL.has(c.vg.catenative)) return;
  const time = timeFor(ctx, s, c);
  // "I fly to Tokyo tomorrow", "I start at Globex on Monday": the present with a time ahead is a plan, said as the future.
  const clause: Clause = c.vg.tense === 'present' && !c.vg.perfect && time && pointsAhead(time) ? { ...c, vg: { ...c.vg, tense: 'future' } } : c;
  if (possessiveCopula(ctx, s, clause, confidence, time)) return;
  if (viewpoint(ctx, s, clause, confidence)) return;
  const subjects = subjectsOf(ctx, s, clause).filter((r) => r.kind === 'entity');
  if (subjects.length === 0) return;
  if (habitAvoided(ctx, s, clause, subjects, confidence, time)) return;
  if (namedRelative(ctx, s, clause, subjects, confidence)) return;
  if (relativeHad(ctx, s, clause, subjects, confidence)) return;
  if (schoolStarted(ctx, s, clause, subjects, confidence, time)) return;
  if (intention(ctx, s, clause, subjects, confidence, time)) return;
  if (POSSIBILITY_MODALS.has(clause.vg.modal ?? '')) return;
  birth(ctx, s, clause, subjects, confidence, time);
  if (death(ctx, s, clause, subjects, confidence, time)) return;
  if (retirement(ctx, s, clause, subjects, confidence, time)) return;
  if (marriage(ctx, s, clause, subjects, confidence, time)) return;
  if (statusChange(ctx, s, clause, subjects, confidence, time)) return;
  if (passiveAgent(ctx, s, clause, confidence, time)) return;
  // "I am a software engineer at Microsoft": the role noun decides before "be at".
  if (clause.vg.root === 'be' && copulaDescription(ctx, s, clause, subjects, confidence, time)) return;
  const matches = matchFrames(ctx, s, clause);
  for (const m of matches) factsFromFrame(ctx, s, clause, subjects, m, confidence, time);
}

/**
 * "Ana is not my sister", "Tom is no longer my boss": the relation is what the copula denies or ends of its subject
 * (copulaDescription says that), not a sister or a boss the speaker has.
 */
function deniedByCopula(ctx: Context, s: number, m: Mention): boolean {
  const tokens = ctx.sentences[s].tokens;
  return ctx.clauses[s].some((c) => {
    if (c.vg.root !== 'be' || !(c.vg.negated || c.vg.ended)) return false;
    const object = trimSpan(tokens, c.object);
    return m.start >= object.start && m.start <= object.start + 1;
  });
}

/**
 * "I broke up with my boyfriend": "my boyfriend" says Sam has one, and the clause says the relationship ended; the
 * sentence's relation facts (`facts[from, to)`) that one of its clauses' facts negates are dropped.
 */
function dropRelationsEndedBy(facts: FactDraft[], from: number, to: number): void {
  const negatedLater = facts.slice(to).filter((f) => f.negated);
  for (let i = to - 1; i >= from; i--) {
    const r = facts[i];
    if (negatedLater.some((f) => f.subject === r.subject && f.predicate === r.predicate && f.object === r.object)) facts.splice(i, 1);
  }
}

/** Facts stated by possessive relations anywhere: "my sister Ana" → speaker family_of Ana. */
function relationFacts(ctx: Context, s: number): void {
  for (const m of ctx.mentions[s]) {
    if (m.kind === 'name' || deniedByCopula(ctx, s, m)) continue;
    const rel = relationEntity(ctx, s, m);
    if (!rel || !rel.ownerKey || !m.relationPredicate) continue;
    const owner: Ref = { kind: 'entity', key: rel.ownerKey, person: true };
    const relative: Ref = { kind: 'entity', key: rel.key, person: m.kind === 'relation' };
    emit(ctx, {
      subject: owner,
      predicate: m.relationPredicate,
      raw: m.relationWord ?? m.relationPredicate,
      object: relative,
      kind: 'semantic',
      negated: !!m.ended,
      ended: !!m.ended,
      time: null,
      confidence: 0.7,
      detail: m.relationWord,
      objectType: m.kind === 'pet' ? 'other' : 'person',
    });
  }
}

function registerMentions(ctx: Context): void {
  ctx.sentences.forEach((sentence, s) => {
    for (const m of ctx.mentions[s]) {
      if (m.kind === 'name' && m.name) {
        const key = ctx.table.add(m.name, { type: m.type, fixedType: m.type !== null, sure: m.strong && !m.onlyIfUsed, surface: m.surface });
        const subjectOfClause = ctx.clauses[s].some((c) => c.subject && m.start >= c.subject.start && m.start < c.subject.end);
        const typed = ctx.table.typeOf(key);
        if (typed === 'person' || (typed === null && subjectOfClause)) ctx.persons.push({ s, t: m.start, key, gender: m.gender });
      } else if (m.kind === 'relation' && !deniedByCopula(ctx, s, m)) {
        // A relative the copula denies ("Ana is not my sister") is nobody a later "she" can mean.
        const rel = relationEntity(ctx, s, m);
        if (rel) ctx.persons.push({ s, t: m.start, key: rel.key, gender: m.gender ?? genderOfRelation(m.relationWord) });
      }
    }
    // "The CEO ... He": definite role subjects are antecedents too.
    for (const c of ctx.clauses[s]) {
      if (!c.subject) continue;
      const tokens = sentence.tokens;
      const sub = trimSpan(tokens, c.subject);
      const lead = tokens[sub.start]?.word;
      if (sub.end - sub.start >= 2 && (lead === 'the' || lead === 'our' || lead === 'this') && ROLE_NOUNS.has(headOf(tokens.slice(sub.start, sub.end)))) {
        const ref = interpret(ctx, s, sub, 'subject');
        if (ref.kind === 'entity') ctx.persons.push({ s, t: sub.start, key: ref.key, gender: null });
      }
    }
    // Speaker pronouns anywhere make the speaker an entity ("I", "me", "my").
    if (ctx.speaker && sentence.tokens.some((t) => SPEAKER_PRONOUNS.has(t.word) && hasTag(t, 'Pronoun', 'Possessive', 'Noun'))) speakerRef(ctx);
  });
  ctx.persons.sort((a, b) => a.s - b.s || a.t - b.t);
}

function genderOfRelation(word: string | undefined): Mention['gender'] {
  if (!word) return null;
  if (/^(?:mother|mom|mum|mommy|sister|daughter|grandma|grandmother|granddaughter|aunt|niece|wife|girlfriend|fiancee|fiancée|stepmother|stepsister)$/.test(word)) return 'female';
  if (/^(?:father|dad|daddy|brother|son|grandpa|grandfather|grandson|uncle|nephew|husband|boyfriend|fiance|fiancé|stepfather|stepbrother)$/.test(word)) return 'male';
  return null;
}

function dedupeFacts(facts: FactDraft[], table: EntityTable): FactDraft[] {
  const seen = new Map<string, FactDraft>();
  for (const f of facts) {
    const key = [table.resolve(f.subject), f.predicate, f.object ? table.resolve(f.object) : '', (f.value ?? '').toLowerCase(), f.negated, f.memory_kind].join('\u0000');
    const prior = seen.get(key);
    if (!prior) seen.set(key, f);
    else if (f.confidence > prior.confidence) prior.confidence = f.confidence;
  }
  return [...seen.values()];
}

/**
 * "Heading to Tokyo tomorrow.", "Working from home today.": chat leaves out "I'm" before a verb in -ing, which then
 * opens no clause; such a sentence is read with it. Not when the sentence before spoke of someone else ("Ana loves
 * Japan. Heading to Tokyo tomorrow.": whose trip is unclear), nor when the -ing word is the subject of a clause
 * ("Living in Berlin is expensive.").
 */
function withDroppedSubject(sentence: Sentence, clausesBefore: Clause[] | undefined): Sentence {
  const first = sentence.tokens[0];
  if (!hasTag(first, 'Gerund') || sentence.question || buildClauses(sentence).length) return sentence;
  const before = clausesBefore?.find((c) => c.subject);
  if (before && !before.sentence.tokens.slice(before.subject!.start, before.subject!.end).some((t) => SPEAKER_PRONOUNS.has(t.word) || SPEAKER_PLURAL_SUBJECT.has(t.word))) return sentence;
  const text = sentence.tokens.map((t) => `${t.text}${t.post}`).join('');
  const [read] = parseText(`I'm ${first.text.toLowerCase()}${text.slice(first.text.length)}`);
  return read ? { ...read, index: sentence.index } : sentence;
}

function analyzeUncached(text: string, speaker: string | null): Analysis {
  const sentences = parseText(text).slice();
  const ctx: Context = {
    speaker: speaker && speaker.trim() ? speaker.trim() : null,
    table: new EntityTable(),
    sentences,
    mentions: [],
    clauses: [],
    persons: [],
    facts: [],
    speakerUsed: false,
  };
  for (const [s, told] of sentences.entries()) {
    const sentence = withDroppedSubject(told, ctx.clauses[s - 1]);
    sentences[s] = sentence;
    const mentions = scanMentions(sentence);
    ctx.mentions.push(mentions);
    // Tokens inside a name are never verbs ("Project Phoenix", "Will Smith").
    const inNames = new Set<number>();
    for (const m of mentions) if (m.kind === 'name') for (let i = m.start; i < m.end; i++) if (sentence.tokens[i].capitalized) inNames.add(i);
    ctx.clauses.push(buildClauses(sentence, inNames));
  }
  registerMentions(ctx);
  sentences.forEach((_, s) => {
    const relationsFrom = ctx.facts.length;
    relationFacts(ctx, s);
    const clausesFrom = ctx.facts.length;
    for (const c of ctx.clauses[s]) processClause(ctx, s, c);
    dropRelationsEndedBy(ctx.facts, relationsFrom, clausesFrom);
  });
  ctx.table.mergeShortForms();
  const facts = dedupeFacts(ctx.facts, ctx.table);
  return { table: ctx.table, entities: ctx.table.candidates(), facts };
}

const CACHE_LIMIT = 64;
const cache = new Map<string, Analysis>();

/** Memoized: the entity and fact stages analyze the same episode one after the other. */
export function analyze(text: string, speaker: string | null): Analysis {
  const key = `${speaker ?? ''}\u0000${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const result = analyzeUncached(text, speaker);
  cache.set(key, result);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return result;
}
