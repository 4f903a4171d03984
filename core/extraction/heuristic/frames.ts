import type { EntityType, MemoryKind, PredicateFamily } from '../../domain/types.js';
import { PREDICATES } from '../../domain/predicates.js';
import { GENERIC_ORGS, HEALTH_NOUNS, MEDICATION_NOUNS, PET_NOUNS, PLAN_HEADS, POSSESSION_NOUNS } from './lexicon.js';

/**
 * The predicate pattern table: which verb (lemma, with its preposition) states
 * which relation. A clause "Stefan works at Premex" has head `work`, object
 * segment `at Premex` → frame works_at. Transitions ("left", "joined", "moved
 * to", "upgraded to") name the event and the state it leads to, so extraction
 * can emit both (DESIGN §3: a transition yields the event and the state).
 */

/** What the extractor knows about a clause's object when choosing a frame. */
export interface ObjectView {
  /** Surface text of the object segment (pronouns not yet resolved). */
  text: string;
  /** Lemma of its head noun ("plans" → "plan"), lower case. */
  head: string;
  /** Entity type when the object names an entity (null for an untyped name). */
  entityType: EntityType | null;
  /** The object names something (a proper name, a relation, a pet). */
  isEntity: boolean;
  /** Mentions an amount of money or a number. */
  hasMoney: boolean;
  hasNumber: boolean;
  /** Refers to a person (pronoun, relation, person name). */
  isPerson: boolean;
  /** A name said as someone's ("Bo's" in "Bo's team"): the object is their thing, not them. */
  possessive?: boolean;
}

/**
 * What one switches to and then uses: a product or an untyped name, not a person, nor someone's thing ("switched from
 * Ana's team to Bo's": a team, not Bo).
 */
const usedThing = (o: ObjectView) => (o.entityType === 'product' || o.entityType === null) && !o.isPerson && !o.possessive;

export interface Derived {
  predicate: string;
  negated: boolean;
  kind: MemoryKind;
}

export interface Frame {
  /** Head keys: verb lemma, "be <adjective>", "<catenative> <verb>" ("start work"). */
  keys: string[];
  /** Prepositions introducing the object; '' is a direct object. */
  preps: string[];
  predicate: string;
  /** 'entity' needs a named object, 'literal' keeps the text as a value, 'any' takes either. */
  object: 'entity' | 'literal' | 'any';
  objectType?: EntityType;
  subjectType?: EntityType;
  kind?: MemoryKind;
  /** What a negated clause means: the relation ended, the opposite predicate, or nothing to record. */
  negation?: 'ends' | 'skip' | { flip: string };
  requires?: (o: ObjectView) => boolean;
  /** Facts that follow from this one (the state a transition leads to). */
  then?: Derived[];
  /** The clause says the relation ended rather than that it holds ("switched from iPhone"). */
  ends?: boolean;
}

const isPlace = (o: ObjectView) => o.entityType === 'place';
const isOrgLike = (o: ObjectView) =>
  (o.isEntity && !o.isPerson && o.entityType !== 'place' && o.entityType !== 'product') || GENERIC_ORGS.has(o.head);
// "the Advanced plan", "a premium subscription" — not "some weekend plans".
const TIER_WORDS = /\b(?:free|basic|starter|standard|plus|pro|premium|advanced|business|enterprise|family|student|team|unlimited|monthly|annual|yearly|gold|silver|platinum|bronze|essential|essentials|ultimate|lite|personal|professional|individual|duo|trial)\b/i;
const isPlan = (o: ObjectView) => PLAN_HEADS.has(o.head) && !/s$/.test(o.text.split(' ').pop() ?? '') && (/\p{Lu}/u.test(o.text) || TIER_WORDS.test(o.text) || o.isEntity);
const isHealth = (o: ObjectView) => HEALTH_NOUNS.has(o.head);
const isMedication = (o: ObjectView) => MEDICATION_NOUNS.has(o.head) || /\bpills?$/.test(o.head);
/** Languages people speak ("I speak French and German"). */
const LANGUAGES = new Set(
  ('english french german spanish italian portuguese dutch mandarin chinese cantonese japanese korean arabic hindi russian ' +
    'polish swedish norwegian danish finnish greek turkish hebrew czech hungarian romanian ukrainian vietnamese thai ' +
    'indonesian bengali urdu punjabi tamil swahili catalan farsi persian tagalog irish welsh icelandic croatian serbian').split(' '),
);
const isLanguage = (o: ObjectView) => LANGUAGES.has(o.head);

const isPossession = (o: ObjectView) =>
  ((POSSESSION_NOUNS.has(o.head) || PET_NOUNS.has(o.head)) && !/\bhot dogs?$/i.test(o.text)) || (o.isEntity && (o.entityType === 'product' || o.entityType === null) && !o.isPerson);
const isPersonObj = (o: ObjectView) => o.isPerson || o.entityType === 'person';
/** School as a stage of life, named by no institution: "starts school", "started kindergarten". */
export const SCHOOLING = /^(?:school|kindergarten|preschool|daycare|nursery|high school|middle school|primary school|elementary school|college|university|uni|grad school|law school|med school|medical school|business school)$/;
const isSchooling = (o: ObjectView) => !o.isEntity && SCHOOLING.test(o.text.toLowerCase());
const notPerson = (o: ObjectView) => !o.isPerson;

/** A named person or organization ("collaborates with Bob", "advises Acme"), not "with enthusiasm". */
const isNamedCounterpart = (o: ObjectView) => o.isEntity && (o.isPerson || o.entityType === 'organization' || o.entityType === null || o.entityType === 'project');
const GROUP_HEADS = /^(?:team|board|club|committee|council|group|association|society|union|band|party|guild|network|community|league|panel|chapter|choir|orchestra|crew|squad|faculty|staff)$/;
/** A named group or organization: "a member of the Rotary Club", "on the board of Acme" — not "part of the plan". */
const isGroup = (o: ObjectView) => o.isEntity && !o.isPerson && o.entityType !== 'place' && o.entityType !== 'event' && o.entityType !== 'product' && (o.entityType === 'organization' || GROUP_HEADS.test(o.head) || o.entityType === null);
const WORK_HEADS = /^(?:report|book|paper|article|post|blog|spec|specification|proposal|memo|document|doc|novel|thesis|dissertation|script|chapter|rfc|essay|poem|whitepaper|white paper|manual|guide|song|screenplay|study|review|column|op-ed|newsletter|readme|design doc|roadmap|library|framework|code)$/;
/** Something written: "the Q3 report", "a book", a named work — not "an email", "to Bob". */
const isWork = (o: ObjectView) => !o.isPerson && (WORK_HEADS.test(o.head) || (o.isEntity && (o.entityType === 'product' || o.entityType === 'other' || o.entityType === null) && !o.isPerson));

const LEFT_WORK: Derived[] = [{ predicate: 'works_at', negated: true, kind: 'semantic' }];
const JOINED_WORK: Derived[] = [{ predicate: 'works_at', negated: false, kind: 'semantic' }];

export const FRAMES: Frame[] = [
  // ---- work ----
  { keys: ['work', 'be employed', 'intern', 'volunteer', 'teach'], preps: ['at', 'for'], predicate: 'works_at', object: 'any', objectType: 'organization', requires: isOrgLike },
  // "Alice isn't at Acme Corp anymore": only a named organization, never "at the gym".
  { keys: ['be'], preps: ['at', 'with'], predicate: 'works_at', object: 'entity', objectType: 'organization', requires: (o) => o.isEntity && isOrgLike(o) && o.entityType !== 'event' },
  { keys: ['work', 'be employed'], preps: ['in'], predicate: 'works_at', object: 'any', objectType: 'organization', requires: (o) => isOrgLike(o) && !isPlace(o) },
  { keys: ['work'], preps: ['as'], predicate: 'has_role', object: 'literal' },
  // "I got promoted to senior engineer": the role held from then on.
  { keys: ['be promote', 'be promoted', 'get promote', 'get promoted'], preps: ['to'], predicate: 'has_role', object: 'literal', negation: 'skip' },
  { keys: ['work'], preps: ['on'], predicate: 'works_on', object: 'any', objectType: 'project' },
  // "got a job at Shopify", "quit my job at the bakery": the job noun joins the verb (see jobSegments).
  { keys: ['get job', 'land job', 'find job', 'start job', 'accept job', 'take job', 'begin job', 'score job'], preps: [''], predicate: 'joined', object: 'any', objectType: 'organization', kind: 'episode', negation: 'skip', requires: isOrgLike, then: JOINED_WORK },
  { keys: ['quit job', 'leave job', 'lose job', 'resign job'], preps: [''], predicate: 'left', object: 'any', objectType: 'organization', kind: 'episode', negation: 'skip', requires: isOrgLike, then: LEFT_WORK },
  { keys: ['have job', 'love job', 'like job'], preps: [''], predicate: 'works_at', object: 'any', objectType: 'organization', requires: isOrgLike },
  // "Emma starts school in September": a pupil, not an employee.
  { keys: ['start', 'begin', 'start at'], preps: [''], predicate: 'studies_at', object: 'literal', negation: 'skip', requires: isSchooling },
  { keys: ['join', 'start work', 'begin work', 'start at', 'start', 'be hire', 'hire', 'be recruit'], preps: ['', 'at', 'by'], predicate: 'joined', object: 'any', objectType: 'organization', kind: 'episode', negation: 'skip', requires: (o) => isOrgLike(o) && !isSchooling(o), then: JOINED_WORK },
  { keys: ['move', 'switch', 'transfer'], preps: ['to'], predicate: 'joined', object: 'entity', objectType: 'organization', kind: 'episode', negation: 'skip', requires: (o) => o.entityType === 'organization', then: JOINED_WORK },
  { keys: ['leave', 'quit', 'resign', 'retire', 'be fire', 'be lay', 'get fire', 'get lay', 'stop work', 'depart', 'exit'], preps: ['', 'from', 'at', 'off from', 'off at'], predicate: 'left', object: 'any', objectType: 'organization', kind: 'episode', negation: 'skip', requires: (o) => isOrgLike(o) && !isPlace(o), then: LEFT_WORK },
  { keys: ['report'], preps: ['to'], predicate: 'reports_to', object: 'entity', objectType: 'person', requires: isPersonObj },
  { keys: ['manage', 'lead', 'supervise', 'run', 'head', 'oversee'], preps: [''], predicate: 'manages', object: 'any', objectType: 'project', requires: (o) => o.isEntity || /team|department|project|group|store|shop|company|business/.test(o.head) },
  // ---- organizations and collaboration ----
  { keys: ['collaborate', 'partner', 'team up', 'team', 'work together', 'cooperate'], preps: ['with', 'up with'], predicate: 'collaborates_with', object: 'entity', requires: isNamedCounterpart },
  // "I work with Bob Smith", not "I work with Python": only a known person or organization.
  { keys: ['work'], preps: ['with', 'together with', 'alongside'], predicate: 'collaborates_with', object: 'entity', requires: (o) => o.isEntity && (o.isPerson || o.entityType === 'organization') },
  { keys: ['advise', 'mentor', 'counsel'], preps: ['', 'on'], predicate: 'advises', object: 'entity', requires: isNamedCounterpart },
  { keys: ['consult'], preps: ['for'], predicate: 'advises', object: 'entity', requires: isNamedCounterpart },
  { keys: ['represent'], preps: [''], predicate: 'represents', object: 'entity', requires: isNamedCounterpart },
  { keys: ['be member', 'sit', 'serve'], preps: ['of', 'on'], predicate: 'member_of', object: 'entity', objectType: 'organization', requires: isGroup },
  { keys: ['found', 'co-found', 'cofound', 'establish', 'co-establish', 'set up', 'set'], preps: ['', 'up'], predicate: 'founded', object: 'entity', objectType: 'organization', negation: 'skip', requires: (o) => isOrgLike(o) && o.entityType !== 'event' },
  { keys: ['invest', 'put money', 'back'], preps: ['in', ''], predicate: 'invested_in', object: 'entity', objectType: 'organization', negation: 'skip', requires: (o) => isOrgLike(o) && !isPlace(o) },
  // "The laptop belongs to Acme"; a person who belongs to a group is a member (see factsForObject).
  { keys: ['belong'], preps: ['to'], predicate: 'belongs_to', object: 'entity', requires: (o) => o.isEntity && o.entityType !== 'place' && o.entityType !== 'event' },
  { keys: ['write', 'author', 'co-author', 'coauthor', 'co-write', 'draft', 'pen'], preps: [''], predicate: 'authored', object: 'any', objectType: 'other', negation: 'skip', requires: isWork },
  // Only the passive: "Acme was mentioned in the board meeting" (an active "I mentioned X in Y" says who spoke, not where X appears).
  { keys: ['be mention', 'be mentioned', 'be cite', 'be cited', 'be reference', 'be referenced', 'be feature', 'be featured', 'be quote', 'be quoted'], preps: ['in', 'during', 'at'], predicate: 'mentioned_in', object: 'any', objectType: 'event', negation: 'skip', requires: (o) => !o.isPerson && o.text.length > 0 },
  { keys: ['be relate', 'be related', 'be connect', 'be connected', 'be link', 'be linked', 'be tie', 'be tied', 'relate'], preps: ['to', 'with'], predicate: 'related_to', object: 'entity', requires: (o) => o.isEntity },
  { keys: ['study', 'be enroll', 'be enrolled'], preps: ['at', 'in'], predicate: 'studies_at', object: 'any', objectType: 'organization', requires: isOrgLike },
  { keys: ['study', 'major'], preps: ['', 'in'], predicate: 'studies', object: 'literal', requires: notPerson },
  { keys: ['graduate'], preps: ['from'], predicate: 'attended', object: 'any', objectType: 'organization', kind: 'episode', negation: 'skip' },
  // ---- places ----
  { keys: ['live', 'reside', 'be base', 'be based', 'base', 'be locate', 'be located', 'settle'], preps: ['in', 'at', 'near', 'outside'], predicate: 'lives_in', object: 'any', objectType: 'place', requires: (o) => o.isEntity || /city|town|village|country|area|suburb|apartment|house|flat/.test(o.head) },
  { keys: ['move', 'relocate', 'be move'], preps: ['to', 'into', 'back to', 'in'], predicate: 'moved_to', object: 'any', objectType: 'place', kind: 'episode', negation: 'skip', then: [{ predicate: 'lives_in', negated: false, kind: 'semantic' }] },
  { keys: ['move', 'be move'], preps: ['out of', 'away from', 'from', 'out from'], predicate: 'left', object: 'any', objectType: 'place', kind: 'episode', negation: 'skip', then: [{ predicate: 'lives_in', negated: true, kind: 'semantic' }] },
  { keys: ['leave'], preps: ['', 'from'], predicate: 'left', object: 'entity', objectType: 'place', kind: 'episode', negation: 'skip', requires: isPlace, then: [{ predicate: 'lives_in', negated: true, kind: 'semantic' }] },
  // "I'm back from Tokyo", "we returned from Lisbon", "got home from Porto": the trip happened and is over.
  { keys: ['be back', 'come back', 'get back', 'fly back', 'return', 'arrive back', 'come home', 'get home', 'fly home', 'arrive home', 'drive home', 'be home'], preps: ['from', 'back from', 'home from'], predicate: 'visited', object: 'entity', objectType: 'place', kind: 'episode', negation: 'skip', requires: isPlace, then: [{ predicate: 'travels_to', negated: true, kind: 'semantic' }] },
  { keys: ['be', 'come'], preps: ['from'], predicate: 'from_place', object: 'any', objectType: 'place' },
  { keys: ['grow', 'grow up', 'be raise', 'be raised'], preps: ['up in', 'in'], predicate: 'from_place', object: 'any', objectType: 'place' },
  { keys: ['be born', 'born', 'be bear'], preps: ['in'], predicate: 'born_in', object: 'any', objectType: 'place', requires: (o) => o.isEntity },
  { keys: ['visit', 'tour'], preps: ['', 'in'], predicate: 'visited', object: 'any', objectType: 'place', kind: 'episode', negation: 'skip', requires: (o) => o.isEntity && !o.isPerson },
  { keys: ['go', 'travel', 'fly', 'drive', 'head', 'be', 'get', 'return', 'come back'], preps: ['to', 'in', 'back to', 'over to'], predicate: 'visited', object: 'entity', objectType: 'place', kind: 'episode', negation: 'skip', requires: isPlace },
  // "We're spending Christmas in Vienna", "I stayed in Porto for a week": a stay is a visit, or a trip when ahead.
  { keys: ['spend', 'stay'], preps: ['in', 'at'], predicate: 'visited', object: 'entity', objectType: 'place', kind: 'episode', negation: 'skip', requires: isPlace },
  // ---- preferences ----
  { keys: ['prefer'], preps: [''], predicate: 'prefers', object: 'any', objectType: 'concept', negation: 'skip', requires: notPerson },
  { keys: ['like', 'love', 'enjoy', 'adore', 'dig'], preps: [''], predicate: 'likes', object: 'any', objectType: 'concept', negation: { flip: 'dislikes' } },
  { keys: ['be obsess', 'be obsessed', 'be crazy', 'be mad', 'be addicted', 'be addict'], preps: ['with', 'about', 'to'], predicate: 'likes', object: 'any', objectType: 'concept', negation: { flip: 'dislikes' } },
  { keys: ['hate', 'dislike', 'detest', 'despise', 'loathe', 'can stand'], preps: [''], predicate: 'dislikes', object: 'any', objectType: 'concept', negation: 'skip' },
  { keys: ['be'], preps: ['into'], predicate: 'interested_in', object: 'any', objectType: 'concept' },
  { keys: ['be interest', 'be interested', 'be passionate', 'be fascinate', 'be fascinated', 'be curious'], preps: ['in', 'about', 'by'], predicate: 'interested_in', object: 'any', objectType: 'concept' },
  { keys: ['be fan', 'be big fan', 'be huge fan'], preps: ['of'], predicate: 'likes', object: 'any', objectType: 'concept', negation: { flip: 'dislikes' } },
  { keys: ['want', 'need', 'wish'], preps: [''], predicate: 'wants', object: 'any', objectType: 'product', negation: 'skip', requires: (o) => !o.isPerson && o.text.length > 0 },
  { keys: ['avoid'], preps: [''], predicate: 'avoids', object: 'any', objectType: 'concept', negation: 'skip' },
  // ---- ownership / plans ----
  { keys: ['upgrade', 'downgrade', 'switch', 'move', 'change', 'subscribe', 'sign up', 'sign', 'be upgrade', 'be downgrade', 'be switch'], preps: ['to', 'up for', 'for', 'onto'], predicate: 'changed_plan', object: 'literal', kind: 'episode', negation: 'skip', requires: isPlan, then: [{ predicate: 'has_plan', negated: false, kind: 'semantic' }] },
  { keys: ['cancel', 'end', 'terminate'], preps: [''], predicate: 'changed_plan', object: 'literal', kind: 'episode', negation: 'skip', requires: isPlan, then: [{ predicate: 'has_plan', negated: true, kind: 'semantic' }] },
  { keys: ['be', 'stay'], preps: ['on'], predicate: 'has_plan', object: 'literal', requires: isPlan },
  { keys: ['have', 'use', 'pay'], preps: ['', 'for'], predicate: 'has_plan', object: 'literal', requires: isPlan },
  { keys: ['have', 'suffer', 'be diagnose', 'be diagnosed', 'get', 'develop', 'catch', 'deal', 'struggle', 'battle'], preps: ['', 'from', 'with'], predicate: 'has_condition', object: 'literal', requires: isHealth },
  { keys: ['take', 'be', 'start', 'use'], preps: ['', 'on'], predicate: 'takes_medication', object: 'literal', requires: isMedication },
  { keys: ['buy', 'purchase', 'adopt', 'get', 'acquire', 'rescue', 'build', 'order'], preps: [''], predicate: 'acquired', object: 'any', objectType: 'product', kind: 'episode', negation: 'skip', requires: isPossession, then: [{ predicate: 'owns', negated: false, kind: 'semantic' }] },
  { keys: ['sell', 'give away', 'give'], preps: ['', 'away'], predicate: 'sold', object: 'any', objectType: 'product', kind: 'episode', negation: 'skip', requires: isPossession, then: [{ predicate: 'owns', negated: true, kind: 'semantic' }] },
  { keys: ['own', 'have', 'drive', 'keep'], preps: [''], predicate: 'owns', object: 'any', objectType: 'product', requires: isPossession },
  { keys: ['use', 'be use', 'rely'], preps: ['', 'on'], predicate: 'uses', object: 'any', objectType: 'product', requires: (o) => o.isEntity && !o.isPerson },
  { keys: ['switch', 'move', 'migrate'], preps: ['to'], predicate: 'uses', object: 'entity', objectType: 'product', requires: usedThing },
  { keys: ['switch', 'migrate'], preps: ['from', 'away from'], predicate: 'uses', object: 'entity', objectType: 'product', negation: 'skip', ends: true, requires: usedThing },
  // ---- health ----
  { keys: ['be allergic', 'be intolerant', 'be sensitive'], preps: ['to'], predicate: 'allergic_to', object: 'literal' },
  // ---- languages ----
  { keys: ['speak'], preps: [''], predicate: 'speaks', object: 'any', objectType: 'concept', requires: isLanguage },
  // "I'm learning Spanish": studied, not yet spoken.
  { keys: ['learn'], preps: [''], predicate: 'studies', object: 'literal', requires: isLanguage },
  { keys: ['be diagnose', 'be diagnosed'], preps: ['with'], predicate: 'has_condition', object: 'literal' },
  // ---- financial ----
  { keys: ['cost', 'be price', 'be priced'], preps: ['', 'at', 'for'], predicate: 'costs', object: 'literal', subjectType: 'product', requires: (o) => o.hasMoney || o.hasNumber },
  { keys: ['sell', 'go', 'retail', 'run'], preps: ['for', 'at'], predicate: 'costs', object: 'literal', subjectType: 'product', requires: (o) => o.hasMoney },
  { keys: ['earn', 'make', 'be pay', 'be paid', 'get pay', 'get paid', 'take home', 'gross'], preps: ['', 'for'], predicate: 'earns', object: 'literal', requires: (o) => o.hasMoney },
  { keys: ['owe'], preps: [''], predicate: 'owes', object: 'literal', requires: (o) => o.hasMoney || o.isEntity },
  { keys: ['save', 'invest'], preps: ['', 'in'], predicate: 'has_budget', object: 'literal', requires: (o) => o.hasMoney },
  // ---- people ----
  // "not engaged" ends no relationship.
  { keys: ['get engage', 'get engaged', 'be engage', 'be engaged'], preps: ['to'], predicate: 'partner_of', object: 'entity', objectType: 'person', negation: 'skip', requires: isPersonObj },
  { keys: ['marry', 'be marry', 'be married', 'get married', 'wed', 'be wed'], preps: ['', 'to'], predicate: 'married_to', object: 'entity', objectType: 'person', requires: isPersonObj },
  // A divorce ends the marriage ("Ana divorced Tom" read "Ana is married to Tom").
  { keys: ['divorce', 'be divorce', 'be divorced', 'separate'], preps: ['', 'from'], predicate: 'married_to', object: 'entity', objectType: 'person', requires: isPersonObj, negation: 'skip', ends: true },
  { keys: ['date', 'see'], preps: ['', 'to'], predicate: 'partner_of', object: 'entity', objectType: 'person', requires: (o) => isPersonObj(o) && o.isEntity },
  // "I broke up with my boyfriend": the relationship ended.
  { keys: ['break', 'break up', 'split', 'split up'], preps: ['up with', 'with'], predicate: 'partner_of', object: 'entity', objectType: 'person', negation: 'skip', ends: true, requires: (o) => isPersonObj(o) && o.isEntity },
  { keys: ['be friend', 'be friends', 'be close', 'befriend', 'be good friend', 'be best friend'], preps: ['with', ''], predicate: 'friend_of', object: 'entity', objectType: 'person', requires: isPersonObj },
  { keys: ['meet', 'know', 'be introduce'], preps: ['', 'to'], predicate: 'knows', object: 'entity', objectType: 'person', requires: (o) => isPersonObj(o) && o.isEntity },
  { keys: ['turn'], preps: [''], predicate: 'has_age', object: 'literal', requires: (o) => /^\d{1,3}$/.test(o.text.trim()) },
  // ---- events ----
  { keys: ['attend', 'go', 'be', 'speak', 'present', 'compete'], preps: ['', 'to', 'at', 'in'], predicate: 'attended', object: 'any', objectType: 'event', kind: 'episode', negation: 'skip', requires: (o) => o.entityType === 'event' || /^(?:conference|summit|meetup|workshop|hackathon|festival|concert|party|wedding|funeral|ceremony|graduation|tournament|championship|marathon|expo|fair|show|webinar|retreat|reunion)$/.test(o.head) },
  { keys: ['participate', 'take part', 'compete', 'play'], preps: ['in'], predicate: 'participated_in', object: 'any', objectType: 'event', kind: 'episode', negation: 'skip', requires: (o) => o.isEntity || /^(?:tournament|competition|league|championship|match|race|marathon|game|contest|hackathon|event|cup|olympics|challenge)$/.test(o.head) },
  { keys: ['schedule', 'book', 'plan', 'arrange', 'have'], preps: [''], predicate: 'scheduled', object: 'literal', kind: 'episode', negation: 'skip', requires: (o) => /^(?:meeting|appointment|interview|call|exam|test|surgery|checkup|check-up|session|flight|trip|vacation|holiday|date|demo|review)$/.test(o.head) },
];

/** Frames indexed by head key, table order kept (earlier frames win). */
export const FRAMES_BY_KEY: ReadonlyMap<string, Frame[]> = (() => {
  const map = new Map<string, Frame[]>();
  for (const f of FRAMES) for (const k of f.keys) map.set(k, [...(map.get(k) ?? []), f]);
  return map;
})();

export function familyOf(predicate: string): PredicateFamily {
  return PREDICATES[predicate]?.family ?? 'other';
}

/** How much a fact matters when ranking what to remember (0–1). */
const IMPORTANCE: Record<string, number> = {
  born_on: 0.8, born_in: 0.7, has_name: 0.9, has_age: 0.6, married_to: 0.8, partner_of: 0.75, family_of: 0.75, friend_of: 0.6,
  knows: 0.45, lives_in: 0.8, located_in: 0.6, from_place: 0.65, visited: 0.5, travels_to: 0.5, works_at: 0.8, has_role: 0.75,
  reports_to: 0.7, works_on: 0.6, manages: 0.65, studies_at: 0.7, studies: 0.6, left: 0.7, joined: 0.7, moved_to: 0.7,
  prefers: 0.65, likes: 0.55, dislikes: 0.55, wants: 0.5, avoids: 0.65, interested_in: 0.5, has_opinion: 0.35, owns: 0.55,
  has_plan: 0.75, changed_plan: 0.65, acquired: 0.5, sold: 0.5, uses: 0.45, has_condition: 0.85, allergic_to: 0.9,
  takes_medication: 0.8, costs: 0.7, earns: 0.75, has_budget: 0.65, owes: 0.65, attended: 0.5, participated_in: 0.5,
  scheduled: 0.6, decided: 0.6, is_a: 0.5, has_status: 0.55, related_to: 0.3,
  collaborates_with: 0.6, advises: 0.6, represents: 0.6, member_of: 0.6, founded: 0.75, invested_in: 0.7, belongs_to: 0.5,
  authored: 0.55, mentioned_in: 0.35, concerns: 0.55,
};

export function importanceOf(predicate: string): number {
  return IMPORTANCE[predicate] ?? 0.5;
}
