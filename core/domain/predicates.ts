import type { DecayClass, PredicateFamily } from './types.js';

export interface PredicateSpec {
  family: PredicateFamily;
  /** At most one value holds at a time (a new value supersedes the old one). */
  singleValued: boolean;
  decayClass: DecayClass;
}

/**
 * The canonical predicates Mnemo reasons about. Extraction may produce others;
 * those fall back to `defaultSpec` (multi-valued, slow decay, family as given).
 */
export const PREDICATES: Record<string, PredicateSpec> = {
  // people / identity
  born_on: { family: 'people', singleValued: true, decayClass: 'permanent' },
  born_in: { family: 'places', singleValued: true, decayClass: 'permanent' },
  has_name: { family: 'people', singleValued: true, decayClass: 'permanent' },
  has_age: { family: 'people', singleValued: true, decayClass: 'slow_decay' },
  married_to: { family: 'people', singleValued: true, decayClass: 'slow_decay' },
  partner_of: { family: 'people', singleValued: true, decayClass: 'slow_decay' },
  knows: { family: 'people', singleValued: false, decayClass: 'slow_decay' },
  friend_of: { family: 'people', singleValued: false, decayClass: 'slow_decay' },
  family_of: { family: 'people', singleValued: false, decayClass: 'permanent' },
  parent_of: { family: 'people', singleValued: false, decayClass: 'permanent' },
  child_of: { family: 'people', singleValued: false, decayClass: 'permanent' },
  sibling_of: { family: 'people', singleValued: false, decayClass: 'permanent' },
  // places
  lives_in: { family: 'places', singleValued: true, decayClass: 'slow_decay' },
  located_in: { family: 'places', singleValued: true, decayClass: 'slow_decay' },
  visited: { family: 'places', singleValued: false, decayClass: 'slow_decay' },
  travels_to: { family: 'places', singleValued: false, decayClass: 'fast_decay' },
  from_place: { family: 'places', singleValued: true, decayClass: 'permanent' },
  // work
  works_at: { family: 'work', singleValued: true, decayClass: 'slow_decay' },
  has_role: { family: 'work', singleValued: true, decayClass: 'slow_decay' },
  reports_to: { family: 'work', singleValued: true, decayClass: 'slow_decay' },
  works_on: { family: 'work', singleValued: false, decayClass: 'fast_decay' },
  manages: { family: 'work', singleValued: false, decayClass: 'slow_decay' },
  studies_at: { family: 'work', singleValued: true, decayClass: 'slow_decay' },
  current_focus: { family: 'work', singleValued: true, decayClass: 'fast_decay' },
  left: { family: 'events', singleValued: false, decayClass: 'permanent' },
  joined: { family: 'events', singleValued: false, decayClass: 'permanent' },
  moved_to: { family: 'events', singleValued: false, decayClass: 'permanent' },
  studies: { family: 'work', singleValued: false, decayClass: 'slow_decay' },
  // preferences
  prefers: { family: 'preferences', singleValued: false, decayClass: 'fast_decay' },
  likes: { family: 'preferences', singleValued: false, decayClass: 'fast_decay' },
  dislikes: { family: 'preferences', singleValued: false, decayClass: 'fast_decay' },
  wants: { family: 'preferences', singleValued: false, decayClass: 'fast_decay' },
  avoids: { family: 'preferences', singleValued: false, decayClass: 'fast_decay' },
  interested_in: { family: 'preferences', singleValued: false, decayClass: 'fast_decay' },
  /** A viewpoint ("I think winter is awesome"): the value holds the opinion. */
  has_opinion: { family: 'preferences', singleValued: false, decayClass: 'fast_decay' },
  // ownership
  owns: { family: 'ownership', singleValued: false, decayClass: 'slow_decay' },
  has_plan: { family: 'other', singleValued: true, decayClass: 'slow_decay' },
  uses: { family: 'ownership', singleValued: false, decayClass: 'fast_decay' },
  // transitions: the event beside the state it leads to (has_plan, owns)
  changed_plan: { family: 'events', singleValued: false, decayClass: 'permanent' },
  acquired: { family: 'events', singleValued: false, decayClass: 'permanent' },
  sold: { family: 'events', singleValued: false, decayClass: 'permanent' },
  // health
  has_condition: { family: 'health', singleValued: false, decayClass: 'slow_decay' },
  allergic_to: { family: 'health', singleValued: false, decayClass: 'permanent' },
  takes_medication: { family: 'health', singleValued: false, decayClass: 'slow_decay' },
  // financial
  costs: { family: 'financial', singleValued: true, decayClass: 'slow_decay' },
  earns: { family: 'financial', singleValued: true, decayClass: 'slow_decay' },
  has_budget: { family: 'financial', singleValued: true, decayClass: 'slow_decay' },
  owes: { family: 'financial', singleValued: false, decayClass: 'fast_decay' },
  // events
  attended: { family: 'events', singleValued: false, decayClass: 'permanent' },
  participated_in: { family: 'events', singleValued: false, decayClass: 'permanent' },
  scheduled: { family: 'events', singleValued: false, decayClass: 'fast_decay' },
  decided: { family: 'events', singleValued: false, decayClass: 'slow_decay' },
  // other
  is_a: { family: 'other', singleValued: false, decayClass: 'slow_decay' },
  has_status: { family: 'other', singleValued: true, decayClass: 'fast_decay' },
  related_to: { family: 'other', singleValued: false, decayClass: 'slow_decay' },
};

export function predicateSpec(predicate: string, family: PredicateFamily): PredicateSpec {
  return PREDICATES[predicate] ?? { family, singleValued: false, decayClass: family === 'preferences' ? 'fast_decay' : 'slow_decay' };
}

export function isSingleValued(predicate: string): boolean {
  return PREDICATES[predicate]?.singleValued ?? false;
}
