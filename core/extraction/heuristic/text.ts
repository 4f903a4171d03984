import { PLURAL_RELATIVES } from './lexicon.js';

/**
 * Self-contained fact sentences ("Alice works at Beacon Capital as of last
 * month.") built from the triple, so pronouns never leak into `fact_text` and
 * the same triple always reads the same (fact-dedup compares these).
 */

export interface FactTextParts {
  subject: string;
  predicate: string;
  negated: boolean;
  kind: 'episode' | 'semantic' | 'viewpoint';
  /** Object entity name or literal value. */
  object: string;
  /** Verb for event facts, past tense ("left", "upgraded to"). */
  eventVerb?: string;
  time: string | null;
  /** "sister" for family_of, "dog" for a named pet, "favorite food" for a favorite. */
  detail?: string;
  /** The time phrase ended the state before the episode was told ("from 2010 to 2014", said in 2026). */
  endedBeforeTelling?: boolean;
  /** The simple past of a state at a point in time ("worked at Acme in 2010"): it held then, and reads so. */
  heldThen?: boolean;
  /** A denial in the simple past at a point in time ("didn't work at Acme in 2010"): it reads in the past, then. */
  deniedThen?: boolean;
  /**
   * Negated because it held and stopped ("no longer", "left", "used to"): it reads "no longer". A negation without it
   * is a plain denial ("I don't work at Acme") and reads "not": it never said the thing once held.
   */
  ended?: boolean;
}

const STATES: Record<string, [string, string]> = {
  works_at: ['works at', 'no longer works at'],
  lives_in: ['lives in', 'no longer lives in'],
  located_in: ['is located in', 'is no longer located in'],
  from_place: ['is from', 'is not from'],
  born_in: ['was born in', 'was not born in'],
  born_on: ['was born on', 'was not born on'],
  reports_to: ['reports to', 'no longer reports to'],
  works_on: ['works on', 'no longer works on'],
  manages: ['manages', 'no longer manages'],
  studies_at: ['studies at', 'no longer studies at'],
  studies: ['studies', 'no longer studies'],
  speaks: ['speaks', 'no longer speaks'],
  prefers: ['prefers', 'no longer prefers'],
  likes: ['likes', 'no longer likes'],
  dislikes: ['dislikes', 'no longer dislikes'],
  wants: ['wants', 'no longer wants'],
  avoids: ['avoids', 'no longer avoids'],
  interested_in: ['is interested in', 'is no longer interested in'],
  owns: ['owns', 'no longer owns'],
  uses: ['uses', 'no longer uses'],
  has_condition: ['has', 'no longer has'],
  allergic_to: ['is allergic to', 'is no longer allergic to'],
  takes_medication: ['takes', 'no longer takes'],
  costs: ['costs', 'no longer costs'],
  earns: ['earns', 'no longer earns'],
  has_budget: ['has a budget of', 'no longer has a budget of'],
  owes: ['owes', 'no longer owes'],
  married_to: ['is married to', 'is no longer married to'],
  partner_of: ['is in a relationship with', 'is no longer in a relationship with'],
  friend_of: ['is friends with', 'is no longer friends with'],
  knows: ['knows', 'no longer knows'],
  is_a: ['is', 'is no longer'],
  has_status: ['is', 'is no longer'],
  visited: ['visited', 'did not visit'],
  travels_to: ['is traveling to', 'is no longer traveling to'],
  attended: ['attended', 'did not attend'],
  participated_in: ['participated in', 'did not participate in'],
  scheduled: ['has scheduled', 'no longer has scheduled'],
  decided: ['decided to', 'decided not to'],
  has_opinion: ['thinks', 'no longer thinks'],
  collaborates_with: ['collaborates with', 'no longer collaborates with'],
  advises: ['advises', 'no longer advises'],
  represents: ['represents', 'no longer represents'],
  member_of: ['is a member of', 'is no longer a member of'],
  founded: ['founded', 'did not found'],
  invested_in: ['invested in', 'did not invest in'],
  belongs_to: ['belongs to', 'no longer belongs to'],
  authored: ['wrote', 'did not write'],
  mentioned_in: ['was mentioned in', 'was not mentioned in'],
  concerns: ['concerns', 'no longer concerns'],
  related_to: ['is related to', 'is no longer related to'],
};

const EVENT_VERBS: Record<string, string> = {
  left: 'left', joined: 'joined', moved_to: 'moved to', changed_plan: 'switched to', acquired: 'acquired', sold: 'sold',
  visited: 'visited', attended: 'attended', participated_in: 'participated in', scheduled: 'scheduled', decided: 'decided to',
};

const IRREGULAR_PAST: Record<string, string> = {
  leave: 'left', quit: 'quit', get: 'got', buy: 'bought', sell: 'sold', give: 'gave', go: 'went', fly: 'flew', drive: 'drove',
  take: 'took', make: 'made', have: 'had', begin: 'began', run: 'ran', lead: 'led', meet: 'met', come: 'came', build: 'built',
  find: 'found', win: 'won', lose: 'lost', speak: 'spoke', grow: 'grew', be: 'was', do: 'did', set: 'set', put: 'put', see: 'saw',
  know: 'knew', pay: 'paid', say: 'said', think: 'thought', teach: 'taught', catch: 'caught', ride: 'rode', swim: 'swam',
};

/** Past tense of a verb lemma ("upgrade" → "upgraded", "leave" → "left"). */
export function pastTense(root: string): string {
  const [verb, ...rest] = root.split(' ');
  let past = IRREGULAR_PAST[verb];
  if (!past) {
    if (verb.endsWith('e')) past = `${verb}d`;
    else if (/[^aeiou]y$/.test(verb)) past = `${verb.slice(0, -1)}ied`;
    else if (/^(?:stop|plan|drop|ship|shop|chat|jog|grab|hug|quit|admit|commit|prefer|refer|travel|cancel|label|signal)$/.test(verb)) past = `${verb}${/l$/.test(verb) ? 'led' : `${verb.slice(-1)}ed`}`;
    else past = `${verb}ed`;
  }
  return [past, ...rest].join(' ');
}

/** The base form of a verb in the third person ("works" → "work", "studies" → "study", "has" → "have"). */
function baseForm(verb: string): string {
  if (verb === 'has') return 'have';
  if (verb === 'does') return 'do';
  if (/[^aeiou]ies$/.test(verb)) return `${verb.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x|[^aeiou]o)es$/.test(verb)) return verb.slice(0, -2);
  return verb.replace(/s$/, '');
}

/**
 * A state's "no longer" phrase said as a plain denial: "no longer works at" → "does not work at", "is no longer" →
 * "is not", "no longer has scheduled" → "has not scheduled". Phrases already plain ("did not attend") are kept.
 */
function deniedPhrase(endedPhrase: string): string {
  if (/^(?:is|was) no longer\b/.test(endedPhrase)) return endedPhrase.replace(/^(is|was) no longer/, '$1 not');
  if (/^no longer has scheduled\b/.test(endedPhrase)) return endedPhrase.replace(/^no longer has/, 'has not');
  const m = /^no longer (\S+)(.*)$/.exec(endedPhrase);
  return m ? `does not ${baseForm(m[1])}${m[2]}` : endedPhrase;
}

function article(value: string): string {
  // A diet said with an adjective takes no article: "Sam is lactose intolerant", "gluten-free", "sober".
  if (/(?:intolerant|-free|\bsober|\bteetotal)$/i.test(value)) return value;
  if (/^(?:a|an|the|my|his|her|their|our|one|\d)\b/i.test(value) || PLURAL_RELATIVES.has(value.toLowerCase())) return value;
  return `${/^[aeiou]/i.test(value) ? 'an' : 'a'} ${value}`;
}

function planPhrase(value: string): string {
  return /\b(?:plan|tier|subscription|package|bundle|membership)$/i.test(value) ? `the ${value}` : `the ${value} plan`;
}

/** States said of a bounded past ("worked at Initech from 2019 to 2021"), where "no longer" would misread. */
const PAST_STATES: Record<string, string> = {
  works_at: 'worked at',
  lives_in: 'lived in',
  located_in: 'was located in',
  reports_to: 'reported to',
  works_on: 'worked on',
  manages: 'managed',
  studies_at: 'studied at',
};

/** A length of time ("for ten years", "for the past two months"): how long a state held, not when. */
const DURATION_PHRASE = /^for\b/i;

/** The role of someone who retired: "Sam is retired", and a later role or a return to work supersedes it. */
export const RETIRED = 'retired';

/** A past state as "<past> <object>" ("worked at Acme", "worked as a nurse", "was retired"), or null for other predicates. */
function pastState(p: FactTextParts): string | null {
  if (p.predicate === 'has_role') return p.object === RETIRED ? `was ${RETIRED}` : `worked as ${article(p.object)}`;
  return PAST_STATES[p.predicate] ? `${PAST_STATES[p.predicate]} ${p.object}` : null;
}

/** A state said with its length: it ended ("worked at"), holds ("has worked at") or was denied ("has not worked at"). */
function stateWithLength(p: FactTextParts, denies: boolean, t: string): string | null {
  if (!p.time || !DURATION_PHRASE.test(p.time) || p.kind === 'episode') return null;
  const past = pastState(p);
  if (!past) return null;
  if (p.negated && !denies) return `${p.subject} ${past}${t}.`;
  return `${p.subject} has ${denies ? 'not ' : ''}${past.replace(/^was /, 'been ')}${t}.`;
}

/**
 * A phrase that bounds a state on both ends, or at its end ("from 2019 to 2021", "until 2021", "before 2010": it had
 * ended by then, so "I lived in Paris before 2010." is a past with its bound, not "no longer lives in Paris before").
 */
const BOUNDING_PHRASE = /^(?:from|between|until|till|through|before)\b/i;

/** Words that open a phrase starting, ending, bounding or measuring a state: it closes a fact as said. */
const BOUND_WORDS = 'since|until|till|from|between|through|as of|for|before|after|starting';
const OPENS_A_BOUND = new RegExp(`^(?:${BOUND_WORDS})\\b`, 'i');
/** Phrases that name no time a state held in: the bounds, and "over two years", "by June". */
const NOT_A_POINT = new RegExp(`^(?:${BOUND_WORDS}|over|by)\\b`, 'i');

/**
 * Whether a time phrase names a point or period a state held in ("in 2010", "last year", "two years ago"), so
 * that the simple past of the state ("I worked at Acme in 2010") says when it held, not when it ended.
 */
export function datesAState(time: string | null): time is string {
  return time !== null && !NOT_A_POINT.test(time);
}

/**
 * Whether a time phrase says when the simple past of a state held ("in 2010") or began ("after 2010": "I lived in
 * Paris after 2010" held from 2010 and is over by the telling, not ended in 2010).
 */
export function timesAPastState(time: string | null): time is string {
  return datesAState(time) || (time !== null && /^after\b/i.test(time));
}

/** Whether a time phrase can end a state, so that rendering asks whether it ended before the telling. */
export function boundsAState(time: string | null): time is string {
  return time !== null && BOUNDING_PHRASE.test(time);
}

/** A time phrase without its leading preposition, to follow "as of" or "until" ("in March" → "March"). */
function bareTime(time: string): string {
  return time.replace(/^(?:in|on|back in|around|during|by)\s+/i, '');
}

/**
 * An unnamed relative is named after the relation: "Sam's sister", "Sam's kids"; "my ex-husband" is "Sam's
 * ex-husband", not "Sam's husband", whom a later "my husband" would be.
 */
export function relativeName(ownerName: string, relationWord: string, endedAs?: 'ex' | 'late'): string {
  return `${ownerName}'s ${endedAs === 'late' ? 'late ' : endedAs === 'ex' ? 'ex-' : ''}${relationWord}`;
}

/** A phrase that opened the sentence ("Last year I…", "From June 2020…") as it reads inside one. */
const lowerFirst = (time: string) => time.replace(/^\p{Lu}(?=\p{Ll}+\b)/u, (c) => c.toLowerCase());

function timeSuffix(time: string | null, kind: FactTextParts['kind']): string {
  if (!time) return '';
  // A phrase that opened the sentence ("From June 2020 until March 2022 I worked…") closes the fact.
  if (kind === 'episode' || OPENS_A_BOUND.test(time)) return ` ${lowerFirst(time)}`;
  return ` as of ${bareTime(time)}`;
}

/** The relation word of a spouse said without a name or a gender ("I'm married"): the entity "Sam's spouse". */
export const SPOUSE = 'spouse';

/** A marriage to a spouse not named ("I'm married", "I got divorced in 2020"): said of the person, not of a spouse. */
function marriedText(p: FactTextParts, denies: boolean): string {
  const s = p.subject;
  const time = p.kind === 'episode' ? null : p.time;
  if (denies) return `${s} is not married.`;
  if (time && DURATION_PHRASE.test(time)) return p.negated ? `${s} was married ${time}.` : `${s} has been married ${time}.`;
  if (boundsAState(time) && (p.negated || p.endedBeforeTelling)) return `${s} was married ${time}.`;
  // A point in time ("last year", "in 2020") dates the wedding, or the divorce that ended it.
  const point = time !== null && !/^(?:since|as of|from|between|until|till|through)\b/i.test(time);
  if (p.negated) return point ? `${s} was married until ${bareTime(time)}.` : `${s} is no longer married${timeSuffix(time, p.kind)}.`;
  if (time && /^since\b/i.test(time)) return `${s} has been married ${time}.`;
  return point ? `${s} got married ${time}.` : `${s} is married${timeSuffix(time, p.kind)}.`;
}

/** Events that get or give up a thing (their objects are things, as owns' are). */
const OWNED_EVENTS = new Set(['acquired', 'sold']);

export function renderFactText(p: FactTextParts): string {
  const s = p.subject;
  const o = p.object;
  // The negative of a state: "no longer" for what ended, "not" for a plain denial.
  const denies = p.negated && p.ended === false;
  const deniedThen = denies && !!p.deniedThen && p.time !== null && p.kind !== 'episode';
  const t = deniedThen ? ` ${lowerFirst(p.time!)}` : timeSuffix(p.time, p.kind);
  const negative = (endedPhrase: string) => (denies ? deniedPhrase(endedPhrase) : endedPhrase);
  // "I worked at Acme for ten years": not "no longer works at Acme for ten years".
  const withLength = stateWithLength(p, denies, t);
  if (withLength) return withLength;
  // "I worked at Initech from 2019 to 2021": a past state with its bounds, not one that has ended "from 2019",
  // nor one that still holds ("Sam works as a nurse from 2010 to 2014").
  // "I worked at Acme in 2010" likewise held then ("Sam worked at Acme in 2010."), not ended then ("no longer … as of 2010").
  // A denial is never read as what held: "I didn't live in Paris from 2010 to 2012." is not "Sam lived in Paris …".
  const heldAsTimed = !denies && (((p.negated || p.endedBeforeTelling) && boundsAState(p.time)) || (p.negated && p.heldThen));
  if (heldAsTimed && p.time && p.kind !== 'episode') {
    const past = pastState(p);
    if (past) return `${s} ${past} ${lowerFirst(p.time)}.`;
  }
  let body: string;
  switch (p.predicate) {
    case 'family_of':
    case 'married_to':
    case 'partner_of':
    case 'friend_of':
    case 'knows':
    case 'reports_to':
      if (p.detail) {
        // An unnamed relative is named after the relation ("Emi's sister"): say it plainly.
        const detail = p.detail;
        if (detail === SPOUSE && p.predicate === 'married_to' && o.toLowerCase() === relativeName(s, detail).toLowerCase()) return marriedText(p, denies);
        if ([undefined, 'ex' as const, 'late' as const].some((endedAs) => o.toLowerCase() === relativeName(s, detail, endedAs).toLowerCase())) {
          // What ended at a time said had it until then: "Sam had a boyfriend until last week".
          if (p.negated && !denies && p.time && p.kind !== 'episode' && !BOUNDING_PHRASE.test(p.time)) return `${s} had ${article(p.detail)} until ${bareTime(p.time)}.`;
          body = p.negated ? `${s} ${denies ? 'does not have' : 'had'} ${article(p.detail)}` : `${s} has ${article(p.detail)}`;
        } else body = p.negated ? `${o} is ${denies ? 'not ' : ''}${s}'s ${denies ? '' : 'former '}${p.detail}` : `${o} is ${s}'s ${p.detail}`;
        break;
      }
      body = `${s} ${p.negated ? negative(STATES[p.predicate]?.[1] ?? 'is no longer family of') : STATES[p.predicate]?.[0] ?? 'is family of'} ${o}`;
      break;
    case 'owns': {
      // A thing said without a name takes an article ("a car"); a named one does not ("the Tesla", "Max").
      const thing = /^\p{Ll}/u.test(o) ? article(o) : o;
      body = p.detail && !p.negated ? `${s} has ${article(p.detail)} named ${o}` : `${s} ${p.negated ? negative('no longer owns') : 'owns'} ${thing}`;
      break;
    }
    case 'has_role':
      if (o === RETIRED) {
        // "I retired last year": dated as said, as a death is; "I'm retired": a state.
        if (!p.negated && p.time && !/^(?:since|as of|for)\b/i.test(p.time)) return `${s} ${RETIRED} ${p.time}.`;
        body = `${s} ${p.negated ? negative('is no longer') : 'is'} ${RETIRED}`;
        break;
      }
      body = `${s} ${p.negated ? negative('no longer works as') : 'works as'} ${article(o)}`;
      break;
    case 'has_condition':
      // "is sick" (an adjective) reads differently from "has asthma".
      body = p.detail === 'state' ? `${s} ${p.negated ? negative('is no longer') : 'is'} ${o}` : `${s} ${p.negated ? negative('no longer has') : 'has'} ${o}`;
      break;
    case 'has_plan':
      body = `${s} ${p.negated ? negative('is no longer on') : 'is on'} ${planPhrase(o)}`;
      break;
    case 'has_name':
      body = `${s}'s name is ${o}`;
      break;
    case 'died':
      // Dated as said ("died last year"), never "as of".
      return `${s} died${p.time ? ` ${p.time}` : ''}.`;
    case 'born_in':
      // A birth happened once: dated as said ("born in Lisbon in 1988"), never "as of 1988".
      if (!p.negated) return `${s} was born in ${o}${p.time ? ` ${lowerFirst(p.time)}` : ''}.`;
      body = `${s} was not born in ${o}`;
      break;
    case 'born_on':
      // A day is "on" ("on March 3, 1990"), a year or a month "in" ("born in 1990", not "born on 1990").
      body = `${s} was ${p.negated ? 'not ' : ''}born ${/\b\d{1,2}(?:st|nd|rd|th)?\b/i.test(o) ? 'on' : 'in'} ${o}`;
      break;
    case 'has_age':
      body = `${s} is ${o} years old`;
      break;
    case 'has_status':
      // "Project Phoenix launched in March.": the status reads as what happened, dated as said.
      return `${s} ${p.negated ? `${negative('is no longer')} ` : ''}${o}${p.time ? ` ${p.time}` : ''}.`;
    case 'is_a':
      body = `${s} ${p.negated ? negative('is no longer') : 'is'} ${article(o)}`;
      break;
    case 'likes':
      if (p.detail && !p.negated) {
        body = `${s}'s ${p.detail} is ${o}`;
        break;
      }
      body = `${s} ${p.negated ? negative('no longer likes') : 'likes'} ${o}`;
      break;
    default: {
      if (p.eventVerb && !p.negated && (p.kind === 'episode' || p.predicate === 'wants' || p.predicate === 'decided')) {
        const verb = p.eventVerb ?? EVENT_VERBS[p.predicate] ?? STATES[p.predicate]?.[0] ?? p.predicate.replace(/_/g, ' ');
        // "bought a new bike", "sold a house": a thing got or sold without a name takes an article.
        const thing = OWNED_EVENTS.has(p.predicate) && /^\p{Ll}/u.test(o) ? article(o) : o;
        body = p.predicate === 'changed_plan' ? `${s} ${verb} ${planPhrase(o)}` : `${s} ${verb} ${thing}`;
        break;
      }
      const raw = p.predicate.replace(/_/g, ' ');
      const phrase = p.negated ? negative(STATES[p.predicate]?.[1] ?? `no longer ${raw}`) : STATES[p.predicate]?.[0] ?? raw;
      body = `${s} ${phrase} ${o}`;
    }
  }
  if (pluralSubject(s) && body.startsWith(`${s} `)) body = `${s} ${inThePlural(body.slice(s.length + 1))}`;
  if (deniedThen) body = body.replace(DENIED_VERB, (_, verb: string) => ` ${DENIED_IN_THE_PAST[verb]} not `);
  return `${body.replace(/\s+/g, ' ').trim()}${t}.`;
}

/** The verb of a denial said of a past time: "Sam did not work at Acme in 2010.", "Ana was not Sam's boss then." */
const DENIED_IN_THE_PAST: Record<string, string> = { does: 'did', do: 'did', is: 'was', are: 'were', has: 'had', have: 'had' };
const DENIED_VERB = new RegExp(` (${Object.keys(DENIED_IN_THE_PAST).join('|')}) not `);

/** Relatives spoken of as a group ("Sam's parents", "Sam's kids") take a plural verb. */
const pluralSubject = (subject: string) => PLURAL_RELATIVES.has(/'s (\S+)$/.exec(subject)?.[1]?.toLowerCase() ?? '');

/** What follows a plural subject: its first verb in the plural ("lives in" → "live in", "is no longer" → "are no longer"). */
function inThePlural(predicate: string): string {
  const m = /^(no longer )?(\S+)(.*)$/s.exec(predicate);
  if (!m) return predicate;
  const [, before = '', verb, rest] = m;
  const IRREGULAR: Record<string, string> = { is: 'are', was: 'were', has: 'have', does: 'do' };
  const plural = IRREGULAR[verb] ?? (/[^s]s$/.test(verb) ? baseForm(verb) : verb);
  return `${before}${plural}${rest}`;
}

/** Predicates whose negation says a thing did not happen ("did not invest in"), not that a state stopped. */
const NEVER_HELD = new Set(Object.entries(STATES).filter(([, [, negative]]) => /^(?:did|decided|was) not\b/.test(negative)).map(([predicate]) => predicate));

/**
 * What a fact said to have ended read while it held ("Sam is no longer traveling to Tokyo." → "Sam is traveling to
 * Tokyo."): stored when there is nothing to end, as that statement held until the end (FactCandidate.held_text).
 * The end itself is the row's end, not words of its text; a past with both bounds ("from 2019 to 2021") or at a
 * point ("in 2010", FactTextParts.heldThen) keeps them.
 */
export function heldText(p: FactTextParts): string | null {
  if (!p.negated || p.kind === 'episode' || NEVER_HELD.has(p.predicate)) return null;
  // "Sam worked at Acme in 2010." is already what held, and when.
  if (p.heldThen && p.time) return renderFactText(p);
  const bounded = boundsAState(p.time);
  return renderFactText({ ...p, negated: false, time: bounded ? p.time : null, endedBeforeTelling: bounded });
}
