import type { EntityType, MemoryKind } from '../../domain/types.js';
import type { EntityCandidate } from '../types.js';
import type { Clause } from './clauses.js';
import { EntityTable } from './entities.js';
import { importanceOf } from './frames.js';
import type { Mention } from './mentions.js';
import type { Sentence, Token } from './nlp.js';
import { boundsAState, timesAPastState } from './text.js';

/** Shared state and vocabulary of one analysis pass, and the single place facts are emitted. */

export interface FactDraft {
  subject: string; // entity key
  predicate: string;
  predicate_raw: string;
  object: string | null; // entity key
  value: string | null;
  memory_kind: MemoryKind;
  importance: number;
  confidence: number;
  negated: boolean;
  /** Negated because it held and stopped ("no longer", "used to", "left", "ex-"), not merely denied ("is not"). */
  ended?: boolean;
  /** Ended as the simple past of a state told at a point in time ("worked at Acme in 2010"): the time says when it held. */
  heldThen?: boolean;
  /** A denial in the simple past at a point in time ("didn't work at Acme in 2010"): denied of that time, and reads so. */
  deniedThen?: boolean;
  time_expression: string | null;
  eventVerb?: string;
  detail?: string;
}

export interface Analysis {
  table: EntityTable;
  entities: EntityCandidate[];
  facts: FactDraft[];
}

export type Ref =
  | { kind: 'entity'; key: string; person: boolean; mention?: Mention }
  | { kind: 'literal'; text: string; head: string; tokens: Token[] }
  | { kind: 'none' };

export const NONE: Ref = { kind: 'none' };
export const FILLERS = new Set([
  'just', 'really', 'also', 'now', 'so', 'well', 'oh', 'and', 'but', 'then', 'actually', 'still', 'even', 'only', 'too', 'lately',
  'recently', 'anymore', 'again', 'already', 'currently', 'though', 'either', 'lol', 'haha', 'hahaha', 'lmao', 'tho', 'very',
  'much', 'totally', 'definitely', 'probably', 'maybe', 'basically', 'literally', 'honestly', 'kinda', 'pretty', 'super', 'soon',
  'longer', 'officially', 'finally', 'yet', 'all', 'both', 'ever', 'always', 'usually', 'often', 'sometimes', 'here', 'there',
  'yeah', 'yes', 'no', 'not', 'never', 'like',
]);
export const DETERMINERS = new Set(['a', 'an', 'the', 'some', 'any', 'this', 'that', 'these', 'those', 'my', 'our', 'your', 'his', 'her', 'their', 'its', 'another', 'every', 'each']);
export const PREP_WORDS = new Set([
  'at', 'in', 'to', 'for', 'from', 'with', 'on', 'as', 'into', 'onto', 'about', 'by', 'near', 'over', 'under', 'after', 'before',
  'out', 'off', 'up', 'down', 'like', 'than', 'toward', 'towards', 'inside', 'outside', 'across', 'through', 'around', 'without',
  'within', 'back', 'away', 'since', 'until', 'during', 'against', 'between', 'behind',
]);
export const FAN_WORDS = new Set(['fan', 'lover', 'enthusiast', 'addict', 'sucker', 'fanatic', 'buff', 'nerd', 'geek', 'junkie', 'devotee']);
export const HONORIFICS = new Set(['mr', 'mrs', 'ms', 'miss', 'dr', 'prof', 'sir', 'madam', 'mx']);
/** Prepositions that end a gerund object: "hiking with my dog" is about hiking. */
export const GERUND_STOPS = new Set(['with', 'in', 'during', 'after', 'before', 'from', 'by', 'near', 'around', 'while', 'when', 'because', 'since', 'until']);
export const JOB_NOUNS = new Set(['job', 'position', 'role', 'internship', 'gig', 'career', 'work', 'contract', 'offer']);
export const CONTACT_VERBS = new Set(['call', 'phone', 'email', 'text', 'message', 'contact', 'ring', 'mail', 'spam']);
export const WANT_CATENATIVES = new Set(['want', 'hope', 'plan', 'wish', 'wanna', 'intend', 'aim', 'dream']);
export const HEALTH_ADJECTIVES = new Set(['diabetic', 'asthmatic', 'pregnant', 'epileptic', 'anemic', 'autistic', 'depressed', 'injured', 'sick', 'ill', 'allergic']);
/** Before a role, these say it ended: "a former teacher", "a retired nurse", "an ex-teacher". */
export const FORMER_ROLE_WORDS = new Set(['former', 'retired', 'ex', 'onetime', 'one-time', 'erstwhile']);
export const DIET_WORDS = new Set(['vegetarian', 'vegan', 'pescatarian', 'gluten-free', 'lactose intolerant', 'sober', 'teetotal']);
export const MONEY_WORDS = /(?:[$€£¥]|\b(?:euros?|dollars?|usd|eur|gbp|pounds|bucks|k|cents?|yen|francs?|per\s+(?:month|year|hour|week))\b)/i;

export interface Context {
  speaker: string | null;
  table: EntityTable;
  sentences: Sentence[];
  mentions: Mention[][];
  clauses: Clause[][];
  /** Person antecedents in text order: [sentence, token, key, gender]. */
  persons: Array<{ s: number; t: number; key: string; gender: Mention['gender'] }>;
  facts: FactDraft[];
  speakerUsed: boolean;
}

// ---- fact emission ---------------------------------------------------------

export interface Emit {
  subject: Ref;
  predicate: string;
  raw: string;
  object: Ref | null;
  value?: string | null;
  kind: MemoryKind;
  negated: boolean;
  /** See FactDraft.ended. */
  ended?: boolean;
  /** The simple past of a state ended it (FactDraft.heldThen holds when its time is a point or a start: see timesAPastState). */
  pastState?: boolean;
  time: string | null;
  confidence: number;
  eventVerb?: string;
  detail?: string;
  subjectType?: EntityType;
  objectType?: EntityType;
}

/** Predicates whose subject may be anything: they say nothing about it being a person. */
export const NON_PERSON_SUBJECTS = new Set(['is_a', 'costs', 'has_status', 'located_in', 'related_to', 'manages', 'uses', 'has_opinion', 'belongs_to', 'mentioned_in', 'concerns', 'collaborates_with', 'advises', 'represents', 'invested_in', 'founded']);

export function emit(ctx: Context, e: Emit): void {
  if (e.subject.kind !== 'entity') return;
  let objectKey: string | null = null;
  let value: string | null = e.value ?? null;
  if (e.object?.kind === 'entity') {
    objectKey = e.object.key;
    if (objectKey === e.subject.key) return;
  } else if (e.object?.kind === 'literal' && value === null) value = e.object.text;
  if (!objectKey && !value) return;
  ctx.table.markUsed(e.subject.key);
  ctx.table.vote(e.subject.key, e.subjectType ?? (NON_PERSON_SUBJECTS.has(e.predicate) ? undefined : 'person'));
  if (objectKey) {
    ctx.table.markUsed(objectKey);
    ctx.table.vote(objectKey, e.objectType);
  }
  // The simple past of a state at a point in time ("in 2010") or after one: it held then, or was denied of then.
  const pastAtAPoint = !!e.pastState && timesAPastState(e.time);
  ctx.facts.push({
    subject: e.subject.key,
    predicate: e.predicate,
    predicate_raw: e.raw.trim() || e.predicate.replace(/_/g, ' '),
    object: objectKey,
    value: value ? value.slice(0, 500) : null,
    memory_kind: e.kind,
    importance: importanceOf(e.predicate),
    confidence: e.confidence,
    negated: e.negated,
    ended: e.negated && !!e.ended,
    heldThen: e.negated && !!e.ended && pastAtAPoint,
    // "I didn't live in Paris from 2010 to 2012" is denied of that period, as a point in time is.
    deniedThen: e.negated && !e.ended && (pastAtAPoint || (!!e.pastState && boundsAState(e.time))),
    time_expression: e.time,
    eventVerb: e.eventVerb,
    detail: e.detail,
  });
}
