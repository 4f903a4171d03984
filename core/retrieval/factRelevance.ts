import { PREDICATES } from '../domain/predicates.js';
import type { PredicateFamily } from '../domain/types.js';
import type { CompactFactView } from './facts.js';
import { contentWords } from './wordCoverage.js';

/**
 * Query words that ask about a predicate family ("where does X work" asks
 * about `work`). A dozen hand-written patterns over the families extraction
 * assigns: the context route's 50 ms budget leaves no room for a model, and the
 * families are a closed set.
 */
const FAMILY_WORDS: Array<[RegExp, PredicateFamily]> = [
  [/^(work\w*|job\w*|employ\w*|compan(y|ies)|career|office|colleagues?|boss|role|position|hired|fired|quit|studies|study\w*|school|universit(y|ies))$/, 'work'],
  [/^(live[sd]?|living|home|city|town|country|based|moved?|moving|address|where|trips?|travel\w*|visit\w*)$/, 'places'],
  [/^(like[sd]?|prefer\w*|favou?rite\w*|enjoy\w*|love[sd]?|hate[sd]?|want\w*|interest\w*|opinion|think|avoid\w*|dislike[sd]?)$/, 'preferences'],
  [/^(own\w*|uses?|using|bought|plans?|subscription|pets?|dogs?|cats?)$/, 'ownership'],
  [/^(health|sick|ill|allerg\w*|medication|medicine|condition|diagnos\w*|food|foods|eat\w*|diet\w*|avoid\w*)$/, 'health'],
  [/^(cost\w*|price\w*|pa(y|id|ys)|salary|earn\w*|budget|owe[sd]?|money|invoice\w*)$/, 'financial'],
  [/^(married|wife|husband|partner|friends?|family|sister|brother|parents?|mother|father|child(ren)?|son|daughter|age|old|born)$/, 'people'],
];

/**
 * Transitions and the state predicates they explain: "left Premex" is why
 * "works at Acme" holds, so it follows the state it explains.
 */
const TRANSITION_TOPIC: Record<string, PredicateFamily> = {
  left: 'work',
  joined: 'work',
  moved_to: 'places',
  changed_plan: 'ownership',
  acquired: 'ownership',
  sold: 'ownership',
};

/** The predicates whose family a state answers ("has_plan" is filed under `other` but answers a question about one's plan). */
const STATE_TOPIC_OVERRIDES: Record<string, PredicateFamily> = { has_plan: 'ownership' };

/** The families a query asks about, from its words. */
export function queryFamilies(query: string): Set<PredicateFamily> {
  const families = new Set<PredicateFamily>();
  for (const word of query.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    for (const [pattern, family] of FAMILY_WORDS) if (pattern.test(word)) families.add(family);
  }
  // "where" alone is a place question only when nothing more specific is asked ("where does X work").
  if (families.size > 1) families.delete('places');
  return families;
}

function topicOf(fact: CompactFactView): { family: string; transition: boolean } {
  const transition = TRANSITION_TOPIC[fact.predicate];
  if (transition) return { family: transition, transition: true };
  const family = STATE_TOPIC_OVERRIDES[fact.predicate] ?? PREDICATES[fact.predicate]?.family ?? fact.family;
  return { family, transition: false };
}

/** Tiers: a state the query asks about, then the transitions explaining it, then the rest. */
const STATE_ON_TOPIC = 2;
const TRANSITION_ON_TOPIC = 1;

/** Whether the query names the fact's subject, as whole words ("where does Lena live?" names Lena). */
function namesSubject(fact: CompactFactView, queryWords: string): boolean {
  const name = fact.subject.name.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).join(' ');
  return name.length > 0 && ` ${queryWords} `.includes(` ${name} `);
}

/**
 * The facts in the order a query wants them: those about whom it names first
 * when it names only some of the subjects ("where does Lena live?" asked for
 * Sam: Lena's facts before Sam's trip), then those answering what it asks
 * about (states before the transitions that explain them), then by how many
 * of the query's words they share, then as given (effective confidence).
 * Pure and cheap: a regex per query word and a word set per fact, no model.
 */
export function orderByRelevance(facts: CompactFactView[], query: string): CompactFactView[] {
  const families = queryFamilies(query);
  const terms = contentWords(query);
  const queryWords = query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).join(' ');
  const scored = facts.map((fact, index) => {
    const topic = topicOf(fact);
    const tier = families.has(topic.family as PredicateFamily) ? (topic.transition ? TRANSITION_ON_TOPIC : STATE_ON_TOPIC) : 0;
    const words = contentWords(fact.fact_text);
    const shared = [...terms].filter((t) => words.has(t)).length;
    return { fact, named: namesSubject(fact, queryWords) ? 1 : 0, tier, shared, index };
  });
  scored.sort((a, b) => b.named - a.named || b.tier - a.tier || b.shared - a.shared || a.index - b.index);
  return scored.map((s) => s.fact);
}
