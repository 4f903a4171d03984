import type { Clause } from './clauses.js';
import { POSSESSIVE_PRONOUNS, RELATION_ADJECTIVES } from './mentions.js';
import { FRAMES_BY_KEY, SCHOOLING } from './frames.js';
import { CONTACT_GERUNDS, OTHER_PRONOUNS, OPINION_VERBS, PERSON_PRONOUNS, PLURAL_RELATIVES, RELATION_PREDICATE, ROLE_NOUNS } from './lexicon.js';
import { hasTag, surface } from './nlp.js';
import { RETIRED, SPOUSE, boundsAState, pastTense, relativeName } from './text.js';
import { CONTACT_VERBS, DETERMINERS, DIET_WORDS, FAN_WORDS, FILLERS, FORMER_ROLE_WORDS, HEALTH_ADJECTIVES, NONE, WANT_CATENATIVES, emit, type Context, type Ref } from './context.js';
import { emptyObject, headOf, interpret, literalText, mentionRef, resolvePronoun, segments, speakerRef, subjectsOf, substitutePronouns, trimSpan, viewOf, type Segment } from './referents.js';
import { factsFromFrame, interpretObject, objectRefs } from './matching.js';

/**
 * Constructions the verb table does not cover: copulas ("I'm a nurse", "my
 * favorite food is pizza"), viewpoints, intentions, passives, status changes,
 * and contact preferences ("stop calling her").
 */

// ---- special constructions -------------------------------------------------

/** The verb as a gerund: as written after "stop"/"quit" ("smoking"), else from its lemma ("smoke" → "smoking", "text" → "texting"). */
function gerundOf(vg: Clause['vg']): string {
  return vg.head.word.endsWith('ing') ? vg.head.word : `${vg.root === 'text' ? 'texting' : vg.root.replace(/e$/, '')}ing`;
}

/** "asked us to stop calling her", "don't call me" → that person avoids phone calls. */
export function contactPreference(ctx: Context, s: number, c: Clause, confidence: number): boolean {
  const vg = c.vg;
  if (!CONTACT_VERBS.has(vg.root) || !(vg.catenative === 'stop' || (vg.negated && !c.subject))) return false;
  const segs = segments(ctx, s, c.object);
  const direct = segs.find((x) => x.prep === '');
  if (!direct) return false;
  const who = interpretObject(ctx, s, direct);
  if (who.kind !== 'entity' || !who.person) return false;
  const gerund = gerundOf(vg);
  const value = CONTACT_GERUNDS[gerund] ?? CONTACT_GERUNDS[`${vg.root}ing`] ?? 'contact';
  emit(ctx, { subject: who, predicate: 'avoids', raw: `stop ${gerund}`, object: null, value, kind: 'semantic', negated: false, time: null, confidence });
  return true;
}

/** Copula sentences about a possessive subject: "my name is Emi", "my favorite food is pizza", "my birthday is May 3". */
export function possessiveCopula(ctx: Context, s: number, c: Clause, confidence: number, time: string | null): boolean {
  if (c.vg.root !== 'be' || !c.subject || c.vg.negated) return false;
  const tokens = ctx.sentences[s].tokens;
  const sub = trimSpan(tokens, c.subject);
  const part = tokens.slice(sub.start, sub.end);
  if (part.length < 2) return false;
  const ownerTok = part[0];
  let owner: Ref = NONE;
  if (ownerTok.word === 'my' || ownerTok.word === 'our') owner = speakerRef(ctx);
  else if (PERSON_PRONOUNS.has(ownerTok.word)) owner = resolvePronoun(ctx, s, ownerTok.i, ownerTok.word);
  else if (ownerTok.text.endsWith("'s")) {
    const m = ctx.mentions[s].find((x) => x.end === ownerTok.i + 1 && x.kind === 'name');
    if (m) owner = mentionRef(ctx, s, m);
  }
  if (owner.kind !== 'entity') return false;
  // "My sister's name is Ana": the name is the sister's (her mention carries it), not the speaker's.
  if (part.slice(1, -1).some((t) => t.text.endsWith("'s"))) return headOf(part) === 'name';
  const rest = part.slice(1).filter((t) => !t.time);
  const head = headOf(rest);
  const objSpan = trimSpan(tokens, c.object);
  const objRef = interpret(ctx, s, objSpan, 'object');
  const objText = objRef.kind === 'entity' ? ctx.table.nameOf(objRef.key) : objRef.kind === 'literal' ? objRef.text : '';
  if (rest.some((t) => t.word === 'favorite' || t.word === 'favourite' || t.word === 'fave')) {
    const noun = rest.filter((t) => !['favorite', 'favourite', 'fave', 'all-time', 'absolute'].includes(t.word)).map((t) => t.text.toLowerCase()).join(' ');
    emit(ctx, { subject: owner, predicate: 'likes', raw: `favorite ${noun}`.trim(), object: objRef.kind === 'entity' ? objRef : null, value: objRef.kind === 'entity' ? null : objText, kind: 'semantic', negated: false, time, confidence, detail: `favorite ${noun}`.trim(), objectType: 'concept' });
    return true;
  }
  if (head === 'name' && objText) {
    emit(ctx, { subject: owner, predicate: 'has_name', raw: 'name is', object: null, value: objText, kind: 'semantic', negated: false, time: null, confidence });
    return true;
  }
  if ((head === 'birthday' || head === 'bday') && (time || objText)) {
    emit(ctx, { subject: owner, predicate: 'born_on', raw: 'birthday is', object: null, value: (time ?? objText).replace(/^on\s+/i, ''), kind: 'semantic', negated: false, time: null, confidence });
    return true;
  }
  if (head === 'budget' && objText) {
    emit(ctx, { subject: owner, predicate: 'has_budget', raw: 'budget is', object: null, value: objText, kind: 'semantic', negated: false, time, confidence });
    return true;
  }
  if (['job', 'role', 'title', 'position', 'profession', 'occupation'].includes(head) && objText) {
    emit(ctx, { subject: owner, predicate: 'has_role', raw: `${head} is`, object: null, value: objText, kind: 'semantic', negated: false, time, confidence });
    return true;
  }
  return false;
}

/** "She's the CEO of Acme", "I am a nurse", "I'm 25", "Max is a dog", "she is my sister". */
export function copulaDescription(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number, time: string | null): boolean {
  if (c.vg.root !== 'be' || c.vg.catenative) return false;
  const tokens = ctx.sentences[s].tokens;
  const span = trimSpan(tokens, c.object);
  if (span.start >= span.end) return false;
  const segs = segments(ctx, s, span);
  const first = segs[0];
  if (!first || first.prep !== '') return false;
  const fs = trimSpan(tokens, first);
  const part = tokens.slice(fs.start, fs.end).filter((t) => !t.time);
  if (part.length === 0) return false;
  const negated = c.vg.negated || c.vg.ended;
  const ended = c.vg.ended;
  // "she is my sister": the subject is the speaker's relative.
  const rel = ctx.mentions[s].find((m) => m.kind === 'relation' && m.start >= fs.start && m.start <= fs.start + 1 && !m.name);
  if (rel && rel.relationPredicate) {
    const owner = rel.owner?.kind === 'speaker' ? speakerRef(ctx) : rel.owner?.kind === 'pronoun' ? resolvePronoun(ctx, s, rel.owner.token, tokens[rel.owner.token].word) : NONE;
    // "Tom is no longer my boss" ends the relation, "Ana is not my sister" denies it; "Mia is not my ex-wife" says nothing.
    const relationEnded = c.vg.ended || (!!rel.ended && !c.vg.negated);
    const relationNegated = relationEnded || c.vg.negated;
    for (const subject of subjects) {
      if (subject.kind !== 'entity' || owner.kind !== 'entity' || (c.vg.negated && rel.ended)) continue;
      emit(ctx, { subject: owner, predicate: rel.relationPredicate, raw: rel.relationWord ?? '', object: subject, kind: 'semantic', negated: relationNegated, ended: relationEnded, time: null, confidence, detail: rel.relationWord, objectType: 'person' });
    }
    return true;
  }
  const words = part.map((t) => t.word);
  const text = literalText(part);
  // Age: "I'm 25", "she is 30 years old".
  const num = part.find((t) => /^\d{1,3}$/.test(t.text));
  if (num && (words.includes('old') || (part.length === 1 && Number(num.text) > 0 && Number(num.text) < 120))) {
    for (const subject of subjects) emit(ctx, { subject, predicate: 'has_age', raw: 'is', object: null, value: num.text, kind: 'semantic', negated, ended, time, confidence });
    return true;
  }
  const head = headOf(part);
  const last = part[part.length - 1];
  // "I'm a big fan of desserts", "a huge Juventus fan", "a sucker for spaghetti": a liking.
  const fanIdx = part.findIndex((t) => FAN_WORDS.has(t.root || t.word));
  if (fanIdx >= 0) {
    const after = segs[1] && ['of', 'for'].includes(segs[1].prep) ? interpretObject(ctx, s, segs[1]) : NONE;
    const ofIdx = part.findIndex((t, k) => k > fanIdx && (t.word === 'of' || t.word === 'for'));
    const inner = ofIdx > 0 ? interpret(ctx, s, { start: part[ofIdx].i + 1, end: part[part.length - 1].i + 1 }, 'object') : NONE;
    const modifiers = part.slice(0, fanIdx).filter((t) => !DETERMINERS.has(t.word) && !hasTag(t, 'Adjective') && !['big', 'huge', 'great', 'massive', 'total', 'real', 'die-hard', 'lifelong'].includes(t.word));
    const target: Ref = inner.kind !== 'none' ? inner : after.kind !== 'none' ? after : modifiers.length ? interpret(ctx, s, { start: modifiers[0].i, end: modifiers[modifiers.length - 1].i + 1 }, 'object') : NONE;
    if (target.kind === 'none') return false;
    // "not a fan of" is a dislike, as "don't like" is; "no longer a fan of" ends the liking.
    const predicate = negated && !ended ? 'dislikes' : 'likes';
    for (const subject of subjects) emit(ctx, { subject, predicate, raw: `is ${literalText(part.slice(0, fanIdx + 1))}`, object: target.kind === 'entity' ? target : null, value: target.kind === 'literal' ? target.text : null, kind: 'semantic', negated: ended, ended, time, confidence, objectType: 'concept' });
    return true;
  }
  if (part.length <= 2 && (HEALTH_ADJECTIVES.has(last.word) || DIET_WORDS.has(text.toLowerCase()))) {
    const predicate = HEALTH_ADJECTIVES.has(last.word) ? 'has_condition' : 'is_a';
    if (last.word === 'allergic') return false;
    for (const subject of subjects) emit(ctx, { subject, predicate, raw: 'is', object: null, value: text, kind: 'semantic', negated, ended, time, confidence, detail: predicate === 'has_condition' ? 'state' : undefined });
    return true;
  }
  // "I'm retired", "my dad is retired now": the role of one who retired.
  if (part.length === 1 && part[0].word === RETIRED) {
    for (const subject of subjects) emit(ctx, { subject, predicate: 'has_role', raw: 'is retired', object: null, value: RETIRED, kind: 'semantic', negated, ended, time, confidence });
    return true;
  }
  // A word that is both ("partner") is a relation when someone's ("my partner"), a role otherwise ("a partner at McKinsey").
  const relation = !!RELATION_PREDICATE[head] && (!ROLE_NOUNS.has(head) || part.some((t) => t.text.endsWith("'s") || t.word in POSSESSIVE_PRONOUNS));
  const isRole = (ROLE_NOUNS.has(head) || hasTag(last, 'Actor')) && !hasTag(last, 'Plural') && !PERSON_PRONOUNS.has(head) && !relation && !words.includes('your');
  if (isRole) {
    // "a former teacher", "a retired nurse", "an ex-teacher": a role that ended, said as "no longer a teacher" is.
    const formerly = part.some((t) => FORMER_ROLE_WORDS.has(t.word));
    // "not a former teacher" says nothing sure either way, as "not my ex-wife" does.
    if (formerly && negated) return true;
    // Drop determiners and evaluative adjectives, keep compounds: "a senior software engineer" → "senior software engineer".
    const roleTokens = part.filter(
      (t) => !DETERMINERS.has(t.word) && !FORMER_ROLE_WORDS.has(t.word) && !['good', 'great', 'bad', 'new', 'real', 'big', 'huge', 'amazing', 'terrible'].includes(t.word),
    );
    const role = surface(roleTokens);
    const orgSeg = segs.find((x) => x.prep === 'at' || x.prep === 'for' || x.prep === 'with');
    const ofIdx = part.findIndex((t) => t.word === 'of');
    // "thinking of becoming a tattoo artist" is not a role; "the CEO of Acme" is.
    if (hasTag(part[0], 'Gerund') || (ofIdx > 0 && !part.slice(0, ofIdx).some((t) => ROLE_NOUNS.has(t.root || t.word) || hasTag(t, 'Actor')))) return false;
    let orgRef: Ref = NONE;
    let roleText = role;
    if (ofIdx > 0) {
      roleText = surface(part.slice(0, ofIdx).filter((t) => !DETERMINERS.has(t.word) && !FORMER_ROLE_WORDS.has(t.word)));
      orgRef = interpret(ctx, s, { start: part[ofIdx].i + 1, end: part[part.length - 1].i + 1 }, 'object');
    } else if (orgSeg) orgRef = interpretObject(ctx, s, orgSeg);
    // "I was a teacher" as "I worked as a teacher" (see ENDED_BY_PAST): a role held in the past. Its stated bounds
    // ("from 2010 to 2014") date it instead.
    const simplePast = c.vg.tense === 'past' && !c.vg.perfect && !c.vg.modal;
    const heldBefore = !negated && simplePast && !boundsAState(time);
    const roleNegated = negated || formerly || heldBefore;
    const roleEnded = ended || formerly || heldBefore;
    // "I wasn't a nurse in 2012": denied of that time (FactDraft.deniedThen), as the simple past says.
    const deniedBefore = negated && !roleEnded && simplePast;
    // "a retired nurse" is retired now, as "I'm retired" is.
    const retiredNow = formerly && !heldBefore && part.some((t) => t.word === RETIRED);
    for (const subject of subjects) {
      emit(ctx, { subject, predicate: 'has_role', raw: 'is', object: null, value: roleText, kind: 'semantic', negated: roleNegated, ended: roleEnded, pastState: heldBefore || deniedBefore, time, confidence });
      if (retiredNow) emit(ctx, { subject, predicate: 'has_role', raw: 'is retired', object: null, value: RETIRED, kind: 'semantic', negated: false, time, confidence });
      if (orgRef.kind === 'entity' && !orgRef.person) emit(ctx, { subject, predicate: 'works_at', raw: `is ${roleText} at`, object: orgRef, kind: 'semantic', negated: roleNegated, ended: roleEnded, pastState: heldBefore || deniedBefore, time, confidence, objectType: 'organization' });
    }
    return true;
  }
  // "Max is a golden retriever", "Acme is a startup", "I'm a vegetarian": a class.
  const quantity = ['little', 'bit', 'lot', 'few', 'couple', 'while', 'kind', 'sort', 'part', 'piece', 'way', 'thing', 'lot', 'fan', 'member'].includes(words[1] ?? '');
  // Only for an explicit, plain statement: not "could be a path", not an inherited subject.
  if ((words[0] === 'a' || words[0] === 'an') && !quantity && c.subject && !c.vg.modal && c.vg.tense !== 'past' && hasTag(last, 'Noun') && !hasTag(last, 'Pronoun', 'Adjective') && part.length <= 5) {
    for (const subject of subjects) emit(ctx, { subject, predicate: 'is_a', raw: 'is', object: null, value: text, kind: 'semantic', negated, ended, time, confidence });
    return true;
  }
  return false;
}

/** "I think winter is awesome": a viewpoint held by the speaker of the opinion verb. */
export function viewpoint(ctx: Context, s: number, c: Clause, confidence: number): boolean {
  if (c.link !== 'complement' || c.parent === null || c.vg.root !== 'be') return false;
  const parent = ctx.clauses[s][c.parent];
  if (!OPINION_VERBS.has(parent.vg.root) || parent.vg.negated) return false;
  const holders = subjectsOf(ctx, s, parent);
  const tokens = ctx.sentences[s].tokens;
  if (!c.subject) return false;
  const subjRef = interpret(ctx, s, c.subject, 'subject');
  const subjText = subjRef.kind === 'entity' ? ctx.table.nameOf(subjRef.key) : subjRef.kind === 'literal' ? subjRef.text : '';
  const obj = trimSpan(tokens, { start: c.vg.start, end: c.object.end });
  const predicateText = surface(substitutePronouns(ctx, s, tokens.filter((t, k) => k >= obj.start && k < obj.end && !t.time && t.text)));
  // "the ending was" says nothing: the opinion needs its predicate.
  if (!subjText || predicateText.split(' ').length < 2 || emptyObject(tokens.slice(c.subject.start, c.subject.end).filter((t) => !t.time && t.text))) return false;
  const value = `${subjText} ${predicateText.replace(/^(?:'s|'re|'m)\b/, 'is')}`.replace(/\s+/g, ' ');
  for (const h of holders) {
    emit(ctx, { subject: h, predicate: 'has_opinion', raw: parent.vg.head.text.toLowerCase(), object: null, value, kind: 'viewpoint', negated: false, time: null, confidence: Math.min(confidence, 0.7) });
  }
  return holders.length > 0;
}

/** "I want to visit Japan", "we decided to move": intentions and decisions as literals. */
export function intention(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number, time: string | null): boolean {
  const vg = c.vg;
  const cat = vg.catenative;
  const wouldLike = (vg.modal === 'would' || vg.modal === "'d") && (cat === 'like' || cat === 'love');
  if (!cat || (!WANT_CATENATIVES.has(cat) && cat !== 'decide' && !wouldLike)) return false;
  if (vg.negated && cat !== 'decide') return true;
  const tokens = ctx.sentences[s].tokens;
  const obj = trimSpan(tokens, c.object);
  const restTokens = tokens.filter((t, k) => k >= obj.start && k < obj.end && !t.time && t.text);
  // "I want to try it": nothing worth keeping without a referent.
  if (restTokens.length && restTokens.every((t) => hasTag(t, 'Pronoun') || DETERMINERS.has(t.word) || OTHER_PRONOUNS.has(t.word) || FILLERS.has(t.word) || t.word === 'some')) return true;
  const rest = surface(substitutePronouns(ctx, s, restTokens));
  const value = `${vg.head.text.toLowerCase()}${rest ? ` ${rest}` : ''}`;
  const predicate = cat === 'decide' ? 'decided' : 'wants';
  // "I wanted to ask you", "I want to say": conversation, not an intention worth remembering.
  if (predicate === 'wants' && (CONVERSATIONAL.test(value) || !rest)) return true;
  if (cat === 'decide') {
    decision(ctx, s, c, subjects, confidence, time);
    return true;
  }
  for (const subject of subjects) {
    emit(ctx, { subject, predicate, raw: `${cat} to`, object: null, value: vg.negated ? `not ${value}` : value, kind: predicate === 'decided' ? 'episode' : 'semantic', negated: false, time, confidence: wouldLike ? Math.min(confidence, 0.7) : confidence, eventVerb: predicate === 'decided' ? 'decided to' : 'wants to' });
  }
  return true;
}

/**
 * "We decided to move the launch to March": the decision is a node of its own
 * (type `decision`, named by what was decided, dates included), linked by
 * `decided` from who took it and by `concerns` to the named project, event,
 * product or organization it is about. A date inside the decision is part of
 * its content, not the time of the decision.
 */
function decision(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number, time: string | null): void {
  const tokens = ctx.sentences[s].tokens;
  const vg = c.vg;
  const obj = trimSpan(tokens, { start: c.object.start, end: c.object.end });
  // trimSpan drops a trailing time phrase ("to March"); a decision keeps it.
  let end = obj.end;
  while (end < c.object.end && (tokens[end].time || !tokens[end].text)) end++;
  const inner = tokens.filter((t, k) => k >= obj.start && k < end && t.text);
  const content = surface(substitutePronouns(ctx, s, inner));
  const name = `${vg.negated ? 'not ' : ''}${vg.head.text.toLowerCase()}${content ? ` ${content}` : ''}`.replace(/[.!?]+$/, '').slice(0, 200);
  const node = ctx.table.add(name, { type: 'decision', fixedType: true, sure: true });
  const ownTime = inner.some((t) => t.time) ? null : time;
  const ref: Ref = { kind: 'entity', key: node, person: false };
  for (const subject of subjects) {
    emit(ctx, { subject, predicate: 'decided', raw: `${vg.catenative} to`, object: ref, kind: 'episode', negated: false, time: ownTime, confidence, eventVerb: 'decided to', objectType: 'decision' });
  }
  for (const m of ctx.mentions[s]) {
    if (m.kind !== 'name' || m.start < obj.start || m.end > end) continue;
    const about = mentionRef(ctx, s, m);
    if (about.kind !== 'entity' || about.person) continue;
    const type = ctx.table.typeOf(about.key);
    if (type === 'person' || type === 'place') continue;
    emit(ctx, { subject: ref, predicate: 'concerns', raw: 'concerns', object: about, kind: 'semantic', negated: false, time: null, confidence, subjectType: 'decision' });
  }
}

type EntityRef = Extract<Ref, { kind: 'entity' }>;

/** The subjects that are people: a death, a retirement or a marriage is said only of them. */
function peopleAmong(ctx: Context, subjects: Ref[]): EntityRef[] {
  return subjects.filter((r): r is EntityRef => r.kind === 'entity' && (r.person || ctx.table.typeOf(r.key) === 'person'));
}

/** A date said as the value of a birth or a death ("on March 3" → "March 3"). */
const dateValue = (time: string) => time.replace(/^(?:on|in)\s+/i, '');

/** "My dad passed away last year", "Ana died in 2020": a death, dated as said (a memory must not ask after them). */
export function death(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number, time: string | null): boolean {
  const vg = c.vg;
  const tokens = ctx.sentences[s].tokens;
  const passedAway = vg.root === 'pass' && tokens.slice(c.object.start, c.object.end).some((t) => t.word === 'away');
  if ((vg.root !== 'die' && !passedAway) || vg.negated || vg.modal || vg.tense !== 'past') return false;
  const people = peopleAmong(ctx, subjects);
  if (people.length === 0) return false;
  const when = time ? dateValue(time) : 'died';
  for (const subject of people) emit(ctx, { subject, predicate: 'died', raw: passedAway ? 'passed away' : 'died', object: null, value: when, kind: 'semantic', negated: false, time, confidence });
  return true;
}

/**
 * "I retired last year", "Dad has retired", "I'm retired": the role of one who retired, dated as said. "I was retired
 * for two years" held before; "retired from Acme" goes on to the frame that ends the job; "I'll retire in May",
 * "I didn't retire" are no retirement.
 */
export function retirement(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number, time: string | null): boolean {
  const vg = c.vg;
  if (vg.root !== 'retire' || vg.modal) return false;
  // "am retired" is a state, as "is retired" (an adjective) is; "retired" alone an event that leaves one retired.
  const state = vg.passive;
  if (!state && (vg.negated || (vg.tense !== 'past' && !vg.perfect))) return false;
  const heldBefore = state && !vg.negated && vg.tense === 'past' && !vg.perfect && !boundsAState(time);
  const negated = (state && vg.negated) || vg.ended || heldBefore;
  const ended = vg.ended || heldBefore;
  const people = peopleAmong(ctx, subjects);
  for (const subject of people) emit(ctx, { subject, predicate: 'has_role', raw: state ? 'is retired' : 'retired', object: null, value: RETIRED, kind: 'semantic', negated, ended, pastState: heldBefore, time, confidence });
  const tokens = ctx.sentences[s].tokens;
  return people.length > 0 && !tokens.slice(c.object.start, c.object.end).some((t) => t.word === 'from');
}

/**
 * "I'm married", "I got married last year", "Ana is married", "I'm divorced", "I got divorced in 2020": a marriage
 * to a spouse not named. "Married to Ana" is the frame's; "I was married" held before, as "I was a teacher" did.
 */
export function marriage(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number, time: string | null): boolean {
  const vg = c.vg;
  const tokens = ctx.sentences[s].tokens;
  const rest = tokens.slice(c.object.start, c.object.end).filter((t) => !t.time && !FILLERS.has(t.word) && !/^\p{P}+$/u.test(t.word));
  const word = vg.passive && (vg.root === 'marry' || vg.root === 'divorce') && rest.length === 0 ? vg.root
    : vg.root === 'be' && rest.length === 1 && ['married', 'divorced'].includes(rest[0].word) ? (rest[0].word === 'married' ? 'marry' : 'divorce')
    : null;
  if (!word || vg.modal) return false;
  // "got married" is the wedding, after which one is married; "was married" a marriage that held before.
  const became = /^(?:get|got|gets|getting|gotten)$/.test(tokens[vg.start]?.word ?? '');
  const past = vg.tense === 'past' && !vg.perfect && !became && !boundsAState(time);
  const people = peopleAmong(ctx, subjects);
  if (people.length === 0) return false;
  // "I'm not divorced" says nothing sure about a marriage.
  if (word === 'divorce' && vg.negated) return true;
  const ended = word === 'divorce' || vg.ended || (past && !vg.negated);
  const negated = ended || vg.negated;
  for (const subject of people) {
    const spouse = ctx.table.add(relativeName(ctx.table.nameOf(subject.key), SPOUSE), { type: 'person', fixedType: true, sure: true });
    emit(ctx, { subject, predicate: 'married_to', raw: word === 'marry' ? 'married' : 'divorced', object: { kind: 'entity', key: spouse, person: true }, kind: 'semantic', negated, ended, time, confidence, detail: SPOUSE, objectType: 'person' });
  }
  return true;
}

/** "born on March 3, 1990", "was born in Lisbon in 1990". */
export function birth(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number, time: string | null): boolean {
  if (c.vg.root !== 'born' && c.vg.head.word !== 'born') return false;
  if (time) for (const subject of subjects) emit(ctx, { subject, predicate: 'born_on', raw: 'was born', object: null, value: dateValue(time), kind: 'semantic', negated: false, time: null, confidence });
  return false;
}

export const TRANSITION_VERBS = new Set(['leave', 'quit', 'resign', 'retire', 'move', 'relocate', 'go', 'come', 'return', 'transfer', 'switch', 'decide']);

/** "I have a daughter named Emma", "Ana has a brother called Tom": a relative named in the object of "have". */
export function namedRelative(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number): boolean {
  if (c.vg.root !== 'have' || c.vg.negated) return false;
  const m = ctx.mentions[s].find((x) => x.kind === 'relation' && x.owner?.kind === 'clause' && x.name && x.start >= c.object.start && x.start < c.object.end);
  if (!m?.relationPredicate) return false;
  const relative = mentionRef(ctx, s, m);
  for (const subject of subjects) {
    emit(ctx, { subject, predicate: m.relationPredicate, raw: `have ${m.relationWord}`, object: relative, kind: 'semantic', negated: false, time: null, confidence, detail: m.relationWord, objectType: 'person' });
  }
  return true;
}

/** "Emma started college at MIT", "I begin law school at Yale in September": a student of the school named. */
export function schoolStarted(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number, time: string | null): boolean {
  const vg = c.vg;
  if (!['start', 'begin', 'enter'].includes(vg.root) || vg.negated || vg.ended || vg.modal) return false;
  const segs = segments(ctx, s, c.object);
  const direct = segs.find((x) => x.prep === '');
  const at = segs.find((x) => x.prep === 'at' || x.prep === 'in');
  if (!direct || !at) return false;
  const tokens = ctx.sentences[s].tokens;
  const stage = trimSpan(tokens, direct);
  if (!SCHOOLING.test(literalText(tokens.slice(stage.start, stage.end).filter((t) => !DETERMINERS.has(t.word))).toLowerCase())) return false;
  const school = interpretObject(ctx, s, at);
  if (school.kind !== 'entity' || school.person || ['place', 'person'].includes(ctx.table.typeOf(school.key) ?? '')) return false;
  for (const subject of subjects) {
    emit(ctx, { subject, predicate: 'studies_at', raw: `${vg.root} ${literalText(tokens.slice(stage.start, stage.end))} at`, object: school, kind: 'semantic', negated: false, time, confidence, objectType: 'organization' });
  }
  return true;
}

/**
 * "I have a sister", "Ana has two kids": a relative the subject has, unnamed, is named after the relation ("Sam's
 * sister"), as "my sister" is. Only family: "I have a friend" says little, and "have a boss" is a role.
 */
export function relativeHad(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number): boolean {
  const vg = c.vg;
  if (vg.root !== 'have' || vg.negated || vg.ended || vg.modal || vg.catenative || vg.tense !== 'present') return false;
  const tokens = ctx.sentences[s].tokens;
  const span = trimSpan(tokens, c.object);
  const words = tokens.slice(span.start, span.end);
  if (words.length < 2 || words.length > 3) return false;
  const [count, ...rest] = words;
  const noun = rest[rest.length - 1];
  const single = /^(?:a|an|one)$/.test(count.word);
  const group = PLURAL_RELATIVES.has(noun.word);
  if (!(single && !group) && !(group && (hasTag(count, 'Value') || /^\d+$/.test(count.word)))) return false;
  if (rest.length === 2 && !RELATION_ADJECTIVES.has(rest[0].word)) return false;
  const relationWord = group ? noun.word : noun.root || noun.word;
  if (RELATION_PREDICATE[relationWord] !== 'family_of' && !(group && RELATION_PREDICATE[noun.root || ''] === 'family_of')) return false;
  for (const subject of subjects) {
    if (subject.kind !== 'entity') continue;
    const relative = ctx.table.add(relativeName(ctx.table.nameOf(subject.key), relationWord), { type: 'person', fixedType: true, sure: true });
    emit(ctx, { subject, predicate: 'family_of', raw: `have ${relationWord}`, object: { kind: 'entity', key: relative, person: true }, kind: 'semantic', negated: false, time: null, confidence, detail: relationWord, objectType: 'person' });
  }
  return true;
}

/** Habits a person gives up or rules out ("stopped drinking coffee", "can't eat gluten"). */
const HABIT_VERBS = new Set(['eat', 'drink', 'smoke', 'vape', 'gamble']);
/** Words that say how much or how a habit goes, not what it takes in ("I don't eat much", "I don't drink often"). */
const HOW_MUCH = new Set(['much', 'lot', 'enough', 'well', 'out', 'often', 'fast', 'late', 'early', 'properly', 'healthy', 'right', 'anything', 'that', 'this', 'it']);
/** Words after which the object of a habit has ended: a reason ("because of my meds") or "anymore". */
const HABIT_OBJECT_ENDS = new Set(['because', 'since', 'due', 'as', 'so', 'but', 'for', 'anymore']);

/**
 * A habit given up or ruled out is what the person now avoids: "I stopped drinking coffee", "I quit smoking last
 * year", "I don't drink coffee anymore", "I used to smoke", "I can't eat gluten", "I don't eat meat", "I never
 * drink" → avoids coffee, smoking, gluten, meat, drinking.
 */
export function habitAvoided(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number, time: string | null): boolean {
  const vg = c.vg;
  if (!HABIT_VERBS.has(vg.root)) return false;
  const stopped = (vg.catenative === 'stop' || vg.catenative === 'quit') && !vg.negated;
  const cannot = vg.modal === 'can' && vg.negated;
  // "I don't eat meat", "I never drink": a habit denied in the present is ruled out ("I didn't eat lunch" is one day).
  const ruledOut = !stopped && !vg.ended && !cannot && vg.negated && vg.tense === 'present' && !vg.modal && !vg.catenative;
  if (!stopped && !vg.ended && !cannot && !ruledOut) return false;
  const segs = segments(ctx, s, c.object);
  const direct = segs.find((x) => x.prep === '');
  const span = direct ? trimSpan(ctx.sentences[s].tokens, direct) : null;
  const words = span ? ctx.sentences[s].tokens.slice(span.start, span.end) : [];
  // A denial is a habit only when nothing narrows it: not "on Fridays", "much", "out", "before noon".
  if (ruledOut && (segs.some((x) => x.prep !== '') || ctx.sentences[s].tokens.slice(c.object.start, c.object.end).some((t) => t.time || HOW_MUCH.has(t.word)))) return false;
  // "alcohol because of my meds": the reason is not part of what is avoided.
  const end = words.findIndex((t) => HABIT_OBJECT_ENDS.has(t.word));
  const objectText = literalText((end >= 0 ? words.slice(0, end) : words).filter((t) => !t.time));
  const value = objectText || gerundOf(vg);
  for (const subject of subjects) emit(ctx, { subject, predicate: 'avoids', raw: `${vg.catenative ?? (cannot ? 'cannot' : ruledOut ? 'does not' : 'no longer')} ${vg.root}`, object: null, value, kind: 'semantic', negated: false, time, confidence, objectType: 'concept' });
  return true;
}

export const NON_FACTUAL = new Set(['try', 'need', 'have', 'gotta', 'ought', 'afford', 'dare', 'pretend', 'refuse', 'fail', 'forget', 'attempt', 'struggle', 'mean', 'deserve', 'wait', 'expect']);
export const IRREALIS = new Set(['wish', 'hope', 'imagine', 'pretend', 'doubt', 'dream', 'wonder', 'ask', 'suppose']);
export const CONVERSATIONAL = /^(?:ask|say|tell|know|mention|let|see|check|make sure|share|talk|hear|show|send|apologize|thank|remind|update|add|clarify|confirm|wish|go|be|do|get|come)\b/;

/** "The project is led by Maria", "Acme was acquired by Google": the agent is the subject. */
export function passiveAgent(ctx: Context, s: number, c: Clause, confidence: number, time: string | null): boolean {
  if (!c.vg.passive || !c.subject) return false;
  const segs = segments(ctx, s, c.object);
  const by = segs.find((x) => x.prep === 'by');
  if (!by) return false;
  const agent = interpretObject(ctx, s, by);
  if (agent.kind !== 'entity') return false;
  const active: Clause = { ...c, vg: { ...c.vg, passive: false, tense: c.vg.tense }, subject: null, object: c.subject };
  const patient: Segment = { prep: '', start: c.subject.start, end: c.subject.end };
  const frames = FRAMES_BY_KEY.get(c.vg.root) ?? [];
  for (const frame of frames) {
    if (!frame.preps.includes('')) continue;
    const refs = objectRefs(ctx, s, patient, 'subject').filter((r) => r.kind !== 'none' && (frame.object !== 'entity' || r.kind === 'entity') && (!frame.requires || frame.requires(viewOf(ctx, r))));
    if (refs.length === 0) continue;
    factsFromFrame(ctx, s, active, [agent], { frame, seg: patient, refs, key: c.vg.root }, confidence, time);
    return true;
  }
  return false;
}

export const STATUS_VERBS = new Set(['launch', 'release', 'ship', 'complete', 'finish', 'cancel', 'delay', 'pause', 'postpone', 'approve', 'deploy', 'publish', 'kick', 'start', 'end', 'close', 'open']);

/** "Project Phoenix launched in March": a project or product changes status. */
export function statusChange(ctx: Context, s: number, c: Clause, subjects: Ref[], confidence: number, time: string | null): boolean {
  if (!STATUS_VERBS.has(c.vg.root) || c.vg.negated) return false;
  const tokens = ctx.sentences[s].tokens;
  const obj = trimSpan(tokens, c.object);
  const direct = segments(ctx, s, obj)[0];
  if (direct && direct.prep === '' && trimSpan(tokens, direct).end > trimSpan(tokens, direct).start) return false;
  const targets = subjects.flatMap((r) => (r.kind === 'entity' && ['project', 'product', 'event'].includes(ctx.table.typeOf(r.key) ?? '') ? [r] : []));
  if (targets.length === 0) return false;
  const status = c.vg.tense === 'future' ? `${c.vg.root} planned` : pastTense(c.vg.root);
  for (const subject of targets) emit(ctx, { subject, predicate: 'has_status', raw: c.vg.head.text.toLowerCase(), object: null, value: status, kind: 'semantic', negated: false, time, confidence, subjectType: ctx.table.typeOf(subject.key) ?? undefined });
  return true;
}
