import type { MemoryKind } from '../../domain/types.js';
import { canonicalName } from '../../domain/canonical.js';
import type { Clause, Span } from './clauses.js';
import { FRAMES_BY_KEY, type Frame } from './frames.js';
import { PLAN_HEADS } from './lexicon.js';
import { hasTag, type Token } from './nlp.js';
import { pastTense } from './text.js';
import { GERUND_STOPS, JOB_NOUNS, emit, type Context, type Ref } from './context.js';
import { headOf, interpret, literalText, segments, trimSpan, viewOf, type Segment } from './referents.js';

/** Matching a clause against the predicate table and emitting its facts (with transitions). */

export function planValue(text: string): string {
  const words = canonicalName(text).split(' ');
  if (words.length > 1 && PLAN_HEADS.has(words[words.length - 1].toLowerCase())) words.pop();
  return words.join(' ');
}

export function rawVerb(tokens: Token[], c: Clause, prep: string): string {
  const words = tokens.slice(c.vg.start, c.vg.end).filter((t) => t.text && !['just', 'really', 'now', 'also', 'still', 'finally', 'recently', 'actually'].includes(t.word)).map((t) => t.text.toLowerCase());
  return [...words, prep].filter(Boolean).join(' ');
}

export interface FrameMatch {
  frame: Frame;
  seg: Segment;
  /** One per conjunct: "I like pizza and pasta" → two objects. */
  refs: Ref[];
  key: string;
}

export function headKeys(ctx: Context, s: number, c: Clause, segs: Segment[]): { keys: string[]; segs: Segment[] } {
  const tokens = ctx.sentences[s].tokens;
  const vg = c.vg;
  const keys: string[] = [];
  const verbWords = tokens.slice(vg.start, vg.end).map((t) => t.root);
  if (vg.catenative) keys.push(`${vg.catenative} ${vg.root}`);
  if (vg.modal === 'can' && vg.root === 'stand') keys.push('can stand');
  let outSegs = segs;
  if (vg.root === 'be' && segs[0]?.prep === '') {
    const first = trimSpan(tokens, segs[0]);
    const t = tokens[first.start];
    if (t && first.start < first.end && hasTag(t, 'Adjective', 'Verb') && !hasTag(t, 'Noun')) {
      keys.push(`be ${t.root || t.word}`, `be ${t.word}`);
      outSegs = [{ prep: '', start: first.start + 1, end: segs[0].end }, ...segs.slice(1)];
    } else if (first.start < first.end) {
      // "a big fan of", "friends with": the noun joins the verb, the next segment is the object.
      const part = tokens.slice(first.start, first.end);
      const head = headOf(part);
      const adjs = part.filter((x) => hasTag(x, 'Adjective')).map((x) => x.word);
      if (['fan', 'friend', 'friends', 'member', 'customer', 'client', 'subscriber', 'user'].includes(head) && segs.length > 1) {
        keys.push(...adjs.map((a) => `be ${a} ${head}`), `be ${head}`);
        outSegs = segs.slice(1);
      } else if (head === 'member') {
        // "a member of the Rotary Club": "of" is no segment boundary, so split after it.
        const of = part.findIndex((x) => x.word === 'of');
        if (of > 0 && of < part.length - 1) {
          keys.push(`be ${head}`);
          outSegs = [{ prep: 'of', start: part[of].i + 1, end: segs[0].end }, ...segs.slice(1)];
        }
      }
    }
  }
  if (vg.root !== 'be' && verbWords.includes('be')) keys.push(`be ${vg.root}`, `be ${vg.head.word}`);
  if (vg.root !== 'get' && verbWords.includes('get')) keys.push(`get ${vg.root}`, `get ${vg.head.word}`);
  if (outSegs[0]?.prep && /^(?:up|out|away|back|home)\b/.test(outSegs[0].prep)) keys.push(`${vg.root} ${outSegs[0].prep.split(' ')[0]}`);
  keys.push(vg.root);
  if (vg.head.word !== vg.root) keys.push(vg.head.word);
  return { keys: [...new Set(keys)], segs: outSegs };
}

/** "got a job at Acme", "quit my job at the bakery": the organization is the object. */
export function jobSegments(ctx: Context, s: number, segs: Segment[]): Segment[] {
  const tokens = ctx.sentences[s].tokens;
  const first = segs[0];
  if (!first || first.prep !== '' || segs.length < 2) return segs;
  const t = trimSpan(tokens, first);
  const head = headOf(tokens.slice(t.start, t.end));
  const next = segs[1];
  if (JOB_NOUNS.has(head) && ['at', 'with', 'for', 'in'].includes(next.prep)) return [{ prep: '', start: next.start, end: next.end }, ...segs.slice(2)];
  return segs;
}

// After a comma, words that start another thought rather than the list's next item.
const LIST_ENDS = new Set(['so', 'but', 'because', 'since', 'though', 'although', 'which', 'who', 'then', 'yet', 'while', 'when', 'where', 'if', 'unless']);

/** The segment up to where its list ends: "allergic to peanuts, so no Thai satay" lists peanuts only. */
function withinList(tokens: Token[], seg: Segment): Segment {
  for (let i = seg.start; i < seg.end - 1; i++) {
    if (/,/.test(tokens[i].post) && LIST_ENDS.has(tokens[i + 1].word)) return { ...seg, end: i + 1 };
  }
  return seg;
}

/** Conjuncts of an object segment ("pizza and pasta", "a dog named Max and two cats"). */
export function objectRefs(ctx: Context, s: number, whole: Segment, role: 'subject' | 'object' = 'object'): Ref[] {
  const tokens = ctx.sentences[s].tokens;
  const seg = withinList(tokens, whole);
  const parts: Span[] = [];
  let from = seg.start;
  for (let i = seg.start; i < seg.end; i++) {
    const inName = ctx.mentions[s].some((m) => i > m.start && i < m.end - 1);
    if (!inName && (tokens[i].word === 'and' || tokens[i].word === 'or' || (/,/.test(tokens[i].post) && i + 1 < seg.end))) {
      const endAt = tokens[i].word === 'and' || tokens[i].word === 'or' ? i : i + 1;
      if (endAt > from) parts.push({ start: from, end: endAt });
      from = i + 1;
    }
  }
  if (seg.end > from) parts.push({ start: from, end: seg.end });
  if (parts.length <= 1) return [interpret(ctx, s, { start: seg.start, end: seg.end }, role)];
  return parts.map((p) => interpret(ctx, s, p, role)).filter((r) => r.kind !== 'none');
}

export const GERUND_OBJECT_PREDICATES = new Set(['likes', 'dislikes', 'prefers', 'interested_in', 'avoids', 'wants']);

/** "I love listening to podcasts": a gerund object keeps its complement up to the next comma. */
export function gerundPhrase(ctx: Context, s: number, seg: Segment, c: Clause, frame: Frame): Segment {
  if (!GERUND_OBJECT_PREDICATES.has(frame.predicate)) return seg;
  const tokens = ctx.sentences[s].tokens;
  const t = trimSpan(tokens, seg);
  // The gerund may open the segment or its last conjunct ("warm weather and going to the beach").
  let lastConjunct = t.start;
  for (let i = t.start; i < t.end; i++) if (tokens[i].word === 'and' || tokens[i].word === 'or') lastConjunct = i + 1;
  if (t.start >= t.end || !hasTag(tokens[lastConjunct], 'Gerund')) return seg;
  let end = seg.end;
  while (end < c.object.end && !/[,;:]/.test(tokens[end - 1].post) && !GERUND_STOPS.has(tokens[end].word)) end++;
  return { prep: seg.prep, start: seg.start, end };
}

export function matchFrames(ctx: Context, s: number, c: Clause): FrameMatch[] {
  const raw = segments(ctx, s, c.object);
  const head = headKeys(ctx, s, c, raw);
  const segs = head.segs;
  const jobSegs = jobSegments(ctx, s, segs);
  const keys = jobSegs !== segs ? [`${c.vg.root} job`, ...(c.vg.catenative ? [`${c.vg.catenative} job`] : []), ...head.keys] : head.keys;
  const matches: FrameMatch[] = [];
  const usedSegs = new Set<number>();
  const usedPredicates = new Set<string>();
  for (const key of keys) {
    const frames = FRAMES_BY_KEY.get(key);
    if (!frames) continue;
    for (const frame of frames) {
      // One statement per predicate, and one end of one ("switched from iPhone to Android": iPhone ended, Android holds).
      const said = frame.ends ? `${frame.predicate} ended` : frame.predicate;
      if (usedPredicates.has(said)) continue;
      let candidates = frame.predicate === 'joined' || frame.predicate === 'left' || frame.predicate === 'works_at' ? jobSegs : segs;
      // A bare copula takes only what follows it directly: "I'm from Italy", not "I'm thinking of ... from pet stores".
      if (key === 'be') candidates = candidates.filter((x, k) => k === 0 || (k === 1 && candidates[0].prep === '' && trimSpan(ctx.sentences[s].tokens, candidates[0]).start >= trimSpan(ctx.sentences[s].tokens, candidates[0]).end));
      for (let k = 0; k < candidates.length; k++) {
        const seg = candidates[k];
        if (usedSegs.has(seg.start) || !frame.preps.includes(seg.prep)) continue;
        const refs = objectRefs(ctx, s, gerundPhrase(ctx, s, seg, c, frame)).filter((ref) => {
          if (ref.kind === 'none') return false;
          if (frame.object === 'entity' && ref.kind !== 'entity') return false;
          return !frame.requires || frame.requires(viewOf(ctx, ref));
        });
        if (refs.length === 0) continue;
        matches.push({ frame, seg, refs, key });
        usedSegs.add(seg.start);
        usedPredicates.add(said);
        break;
      }
    }
    if (matches.length) break;
  }
  return matches;
}

export function interpretObject(ctx: Context, s: number, seg: Segment): Ref {
  return interpret(ctx, s, { start: seg.start, end: seg.end }, 'object');
}

export function factsFromFrame(ctx: Context, s: number, c: Clause, subjects: Ref[], m: FrameMatch, confidence: number, time: string | null): void {
  const tokens = ctx.sentences[s].tokens;
  const vg = c.vg;
  const frame = m.frame;
  let predicate = frame.predicate;
  let negated = !!frame.ends;
  let ended = !!frame.ends;
  // "I used to live in Paris back in 2015": a state that held then, as the simple past of it says.
  let pastState = false;
  const kind: MemoryKind = frame.kind ?? 'semantic';
  const isNeg = vg.negated && !(m.key === 'can stand');
  if (vg.ended) {
    if (kind === 'episode') return;
    negated = true;
    ended = true;
    pastState = vg.catenative === 'use' && !vg.negated;
  } else if (isNeg) {
    const rule = frame.negation ?? 'ends';
    if (rule === 'skip') return;
    if (rule === 'ends') negated = true;
    else predicate = rule.flip;
  }
  if (m.key === 'can stand' && !vg.negated) return;
  const raw = rawVerb(tokens, c, m.seg.prep);
  const eventVerb = kind === 'episode' ? eventVerbOf(c, m, predicate) : undefined;
  for (const ref of m.refs) factsForObject(ctx, c, subjects, m, ref, { predicate, negated, ended, ...(pastState ? { pastState } : {}), kind, raw, eventVerb, confidence, time });
}

export function eventVerbOf(c: Clause, m: FrameMatch, predicate: string): string {
  const vg = c.vg;
  if (predicate === 'visited') return vg.tense === 'future' ? 'will visit' : 'visited';
  if (predicate === 'attended') return vg.tense === 'future' ? 'will attend' : 'attended';
  const prep = m.seg.prep && !m.key.endsWith(' job') ? ` ${m.seg.prep}` : '';
  const catenative = vg.catenative && ['start', 'stop', 'begin', 'quit'].includes(vg.catenative) ? vg.catenative : null;
  const lemma = m.key.endsWith(' job') ? `${m.key.replace(/ job$/, '')} a job at` : catenative ? `${catenative} ${vg.head.text.toLowerCase()}` : vg.root;
  if (vg.tense === 'future') return `will ${lemma}${prep}`;
  if (vg.passive) return `was ${vg.head.text.toLowerCase()}${prep}`;
  return `${pastTense(lemma)}${prep}`;
}

export interface Stated {
  predicate: string;
  negated: boolean;
  /** See FactDraft.ended. */
  ended: boolean;
  /** See Emit.pastState. */
  pastState?: boolean;
  kind: MemoryKind;
  raw: string;
  eventVerb: string | undefined;
  confidence: number;
  time: string | null;
}

export const EVENTFUL = new Set(['attended', 'visited', 'participated_in', 'travels_to']);
/** Verbs of a change whose object is the state reached ('switch to', 'migrate to'), whatever their tense. */
const CHANGES_INTO = new Set(['switch', 'move', 'migrate', 'settle', 'relocate', 'transfer', 'change', 'start', 'begin', 'start at', 'be promote', 'be promoted', 'get promote', 'get promoted']);
export const ENDED_BY_PAST = new Set(['works_at', 'lives_in', 'studies_at', 'has_role', 'located_in', 'manages', 'reports_to', 'works_on', 'owns', 'uses', 'has_plan']);

export function factsForObject(ctx: Context, c: Clause, subjects: Ref[], m: FrameMatch, ref: Ref, stated: Stated): void {
  let st = stated;
  const vg = c.vg;
  const frame = m.frame;
  let object: Ref = ref;
  let value: string | null = null;
  if (frame.object === 'literal' || ref.kind === 'literal') {
    const text = ref.kind === 'entity' ? ctx.table.nameOf(ref.key) : ref.kind === 'literal' ? ref.text : '';
    value = st.predicate === 'has_plan' || st.predicate === 'changed_plan' ? planValue(text) : text;
    // "go see a concert": the verb is not part of what was attended.
    if (ref.kind === 'literal' && EVENTFUL.has(st.predicate) && hasTag(ref.tokens[0], 'Verb') && !hasTag(ref.tokens[0], 'Gerund') && ref.tokens.length > 1) value = literalText(ref.tokens.slice(1));
    object = { kind: 'none' };
    if (!value) return;
  }
  // "a dog named Max": the fact says what Max is.
  const detail = ref.kind === 'entity' && ref.mention?.kind === 'pet' ? ref.mention.relationWord : undefined;
  // "broke up with my boyfriend": an unnamed relative of the relation stated reads as the relation ("Sam had a boyfriend").
  const relative = ref.kind === 'entity' && ref.mention?.kind === 'relation' && !ref.mention.name && ref.mention.relationPredicate === stated.predicate ? ref.mention.relationWord : undefined;
  // "I just had a hot dog": past "have" is not ownership.
  if (m.key === 'have' && vg.tense === 'past' && (st.predicate === 'owns' || st.predicate === 'has_plan')) return;
  // "I worked at IBM", "I lived in Paris": the simple past of a state says it is over ("have worked" does not);
  // not a change into it ("I switched to Android": Sam uses Android now).
  const pastOfState = vg.tense === 'past' && !vg.perfect && (frame.kind ?? 'semantic') === 'semantic' && ENDED_BY_PAST.has(st.predicate);
  if (pastOfState && !st.negated && !CHANGES_INTO.has(m.key)) st = { ...st, negated: true, ended: true, pastState: true };
  // "I didn't work at Acme in 2010": denied of that time, not from then on ("does not work at Acme as of 2010").
  else if (pastOfState && st.negated && !st.ended) st = { ...st, pastState: true };
  const { predicate, negated, ended, pastState, kind, raw, eventVerb, confidence, time } = st;
  for (const subject of subjects) {
    // A person does not cost 40 euro: frames made for things skip people.
    if (frame.subjectType && frame.subjectType !== 'person' && subject.kind === 'entity' && ctx.table.typeOf(subject.key) === 'person') continue;
    // An organization "based in" a city is located there; a person lives there.
    let p = predicate;
    const placed = subject.kind === 'entity' && ['organization', 'product', 'project'].includes(ctx.table.typeOf(subject.key) ?? '');
    if (p === 'lives_in' && placed) p = 'located_in';
    // "Acme, which is in Boston": a company that is somewhere is located there; it does not visit.
    if (p === 'visited' && placed && m.key === 'be') p = 'located_in';
    // "Ana belongs to the chess club": a person belongs to a group as a member; a thing belongs to its owner.
    if (p === 'belongs_to' && subject.kind === 'entity' && (subject.person || ctx.table.typeOf(subject.key) === 'person')) p = 'member_of';
    // "I'm going to Paris next week": a plan, not a visit. "I get back from Tokyo next Tuesday": the trip is on now,
    // and the day said is its end, not its start.
    const ahead = p === 'visited' && (vg.tense === 'future' || (vg.progressive && vg.tense === 'present'));
    if (ahead) p = 'travels_to';
    const returning = ahead && (frame.then ?? []).some((d) => d.predicate === 'travels_to' && d.negated);
    emit(ctx, {
      subject,
      predicate: p,
      raw,
      object: value === null ? object : null,
      value,
      kind: p === 'travels_to' || p === 'located_in' ? 'semantic' : kind,
      negated,
      ended,
      pastState,
      time: returning ? null : time,
      confidence: vg.tense === 'future' && confidence === 0.7 ? 0.6 : confidence,
      eventVerb,
      detail: detail ?? relative,
      subjectType: frame.subjectType,
      objectType: frame.objectType,
    });
    if (p === 'travels_to') continue;
    for (const d of frame.then ?? []) {
      emit(ctx, {
        subject,
        predicate: d.predicate === 'lives_in' && subject.kind === 'entity' && ctx.table.typeOf(subject.key) === 'organization' ? 'located_in' : d.predicate,
        raw,
        object: value === null ? object : null,
        value,
        kind: d.kind,
        negated: d.negated,
        ended: d.negated,
        time: d.negated ? time : startedBy(time),
        confidence,
        detail,
        subjectType: frame.subjectType,
        objectType: frame.objectType,
      });
    }
  }
}

/**
 * The time of a state an event started ("I moved to Berlin before 2020" → lives in Berlin): the event's "before 2020"
 * says the state held by then, not that it ended then, so the state reads "by 2020" (from then at the latest).
 */
function startedBy(time: string | null): string | null {
  return time === null ? null : time.replace(/^before\b/i, (word) => (word[0] === 'B' ? 'By' : 'by'));
}
