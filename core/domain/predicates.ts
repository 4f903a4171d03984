import type { DecayClass, PredicateFamily } from './types.js';

export interface PredicateSpec {
  family: PredicateFamily;
  /** At most one value holds at a time (a new value supersedes the old one). */
  singleValued: boolean;
  decayClass: DecayClass;
  /** What the relation means, for the model prompt and GET /v1/ontology. */
  description: string;
}

/**
 * The canonical predicates Mnemo reasons about. Extraction may produce others;
 * those fall back to `defaultSpec` (multi-valued, slow decay, family as given).
 */
export const PREDICATES: Record<string, PredicateSpec> = {
  // people / identity
  born_on: { family: 'people', singleValued: true, decayClass: 'permanent', description: 'date of birth' },
  born_in: { family: 'places', singleValued: true, decayClass: 'permanent', description: 'place of birth' },
  died: { family: 'people', singleValued: true, decayClass: 'permanent', description: 'died (the value is when, as said)' },
  has_name: { family: 'people', singleValued: true, decayClass: 'permanent', description: 'the name they go by' },
  has_age: { family: 'people', singleValued: true, decayClass: 'slow_decay', description: 'age in years' },
  married_to: { family: 'people', singleValued: true, decayClass: 'slow_decay', description: 'spouse' },
  partner_of: { family: 'people', singleValued: true, decayClass: 'slow_decay', description: 'romantic partner' },
  knows: { family: 'people', singleValued: false, decayClass: 'slow_decay', description: 'acquaintance, colleague, neighbour' },
  friend_of: { family: 'people', singleValued: false, decayClass: 'slow_decay', description: 'friend' },
  family_of: { family: 'people', singleValued: false, decayClass: 'permanent', description: 'relative (the kind in the fact text)' },
  parent_of: { family: 'people', singleValued: false, decayClass: 'permanent', description: 'the object is their child' },
  child_of: { family: 'people', singleValued: false, decayClass: 'permanent', description: 'the object is their parent' },
  sibling_of: { family: 'people', singleValued: false, decayClass: 'permanent', description: 'brother or sister' },
  speaks: { family: 'people', singleValued: false, decayClass: 'slow_decay', description: 'a language spoken' },
  // places
  lives_in: { family: 'places', singleValued: true, decayClass: 'slow_decay', description: 'home town or country' },
  located_in: { family: 'places', singleValued: true, decayClass: 'slow_decay', description: 'where a place, organization or event is' },
  visited: { family: 'places', singleValued: false, decayClass: 'slow_decay', description: 'a place they went to' },
  travels_to: { family: 'places', singleValued: false, decayClass: 'fast_decay', description: 'a planned or ongoing trip' },
  from_place: { family: 'places', singleValued: true, decayClass: 'permanent', description: 'where they come from' },
  // work
  works_at: { family: 'work', singleValued: true, decayClass: 'slow_decay', description: 'employer' },
  has_role: { family: 'work', singleValued: true, decayClass: 'slow_decay', description: 'job title or role' },
  reports_to: { family: 'work', singleValued: true, decayClass: 'slow_decay', description: 'their manager' },
  works_on: { family: 'work', singleValued: false, decayClass: 'fast_decay', description: 'project or topic they work on' },
  manages: { family: 'work', singleValued: false, decayClass: 'slow_decay', description: 'a team, project or person they lead' },
  studies_at: { family: 'work', singleValued: true, decayClass: 'slow_decay', description: 'school or university' },
  current_focus: { family: 'work', singleValued: true, decayClass: 'fast_decay', description: 'what they are focused on now' },
  left: { family: 'events', singleValued: false, decayClass: 'permanent', description: 'left an organization or place (event)' },
  joined: { family: 'events', singleValued: false, decayClass: 'permanent', description: 'joined an organization (event)' },
  moved_to: { family: 'events', singleValued: false, decayClass: 'permanent', description: 'moved to a place (event)' },
  // organizations and collaboration (the relationships the seed documents name)
  collaborates_with: { family: 'work', singleValued: false, decayClass: 'slow_decay', description: 'works together with a person or organization' },
  advises: { family: 'work', singleValued: false, decayClass: 'slow_decay', description: 'mentor, advisor or consultant of a person or organization' },
  represents: { family: 'work', singleValued: false, decayClass: 'slow_decay', description: 'acts for a person or organization (lawyer, agent, spokesperson)' },
  member_of: { family: 'work', singleValued: false, decayClass: 'slow_decay', description: 'belongs to a team, board, club or group' },
  founded: { family: 'work', singleValued: false, decayClass: 'permanent', description: 'founded or co-founded an organization or project' },
  invested_in: { family: 'financial', singleValued: false, decayClass: 'permanent', description: 'put money into a company or project' },
  belongs_to: { family: 'ownership', singleValued: false, decayClass: 'slow_decay', description: 'a thing, project or unit is part of or owned by the object' },
  authored: { family: 'work', singleValued: false, decayClass: 'permanent', description: 'wrote a document, book, paper or code' },
  mentioned_in: { family: 'other', singleValued: false, decayClass: 'slow_decay', description: 'named in a document, meeting or conversation' },
  /** A decision node and what it is about: "moved the launch to March" concerns the launch. */
  concerns: { family: 'events', singleValued: false, decayClass: 'slow_decay', description: 'a decision is about this project, event or thing' },
  studies: { family: 'work', singleValued: false, decayClass: 'slow_decay', description: 'field of study' },
  // preferences
  prefers: { family: 'preferences', singleValued: false, decayClass: 'fast_decay', description: 'preference' },
  likes: { family: 'preferences', singleValued: false, decayClass: 'fast_decay', description: 'something liked' },
  dislikes: { family: 'preferences', singleValued: false, decayClass: 'fast_decay', description: 'something disliked' },
  wants: { family: 'preferences', singleValued: false, decayClass: 'fast_decay', description: 'a wish or intention' },
  // What someone avoids is a diet, a habit given up or a way not to be contacted: it lasts as what they own does.
  avoids: { family: 'preferences', singleValued: false, decayClass: 'slow_decay', description: 'something avoided' },
  interested_in: { family: 'preferences', singleValued: false, decayClass: 'fast_decay', description: 'an interest' },
  /** A viewpoint ("I think winter is awesome"): the value holds the opinion. */
  has_opinion: { family: 'preferences', singleValued: false, decayClass: 'fast_decay', description: 'a viewpoint (value holds the opinion)' },
  // ownership
  owns: { family: 'ownership', singleValued: false, decayClass: 'slow_decay', description: 'a possession or pet' },
  has_plan: { family: 'other', singleValued: true, decayClass: 'slow_decay', description: 'subscription plan or tier' },
  uses: { family: 'ownership', singleValued: false, decayClass: 'fast_decay', description: 'a tool, product or service used' },
  // transitions: the event beside the state it leads to (has_plan, owns)
  changed_plan: { family: 'events', singleValued: false, decayClass: 'permanent', description: 'switched plan (event)' },
  acquired: { family: 'events', singleValued: false, decayClass: 'permanent', description: 'bought or got something (event)' },
  sold: { family: 'events', singleValued: false, decayClass: 'permanent', description: 'sold or gave away something (event)' },
  // health
  has_condition: { family: 'health', singleValued: false, decayClass: 'slow_decay', description: 'health condition' },
  allergic_to: { family: 'health', singleValued: false, decayClass: 'permanent', description: 'allergy' },
  takes_medication: { family: 'health', singleValued: false, decayClass: 'slow_decay', description: 'medication' },
  // financial
  costs: { family: 'financial', singleValued: true, decayClass: 'slow_decay', description: 'price' },
  earns: { family: 'financial', singleValued: true, decayClass: 'slow_decay', description: 'income' },
  has_budget: { family: 'financial', singleValued: true, decayClass: 'slow_decay', description: 'budget' },
  owes: { family: 'financial', singleValued: false, decayClass: 'fast_decay', description: 'a debt' },
  // events
  attended: { family: 'events', singleValued: false, decayClass: 'permanent', description: 'an event they were at' },
  participated_in: { family: 'events', singleValued: false, decayClass: 'permanent', description: 'an event or competition they took part in' },
  scheduled: { family: 'events', singleValued: false, decayClass: 'fast_decay', description: 'a meeting or appointment they set up' },
  decided: { family: 'events', singleValued: false, decayClass: 'slow_decay', description: 'a decision they made (object: the decision node)' },
  // other
  is_a: { family: 'other', singleValued: false, decayClass: 'slow_decay', description: 'class or kind' },
  has_status: { family: 'other', singleValued: true, decayClass: 'fast_decay', description: 'status of a project, product or event' },
  related_to: { family: 'other', singleValued: false, decayClass: 'slow_decay', description: 'a loose link when nothing more specific fits' },
};

export function predicateSpec(predicate: string, family: PredicateFamily): PredicateSpec {
  return PREDICATES[predicate] ?? { family, singleValued: false, decayClass: family === 'preferences' ? 'fast_decay' : 'slow_decay', description: predicate.replace(/_/g, ' ') };
}

export function isSingleValued(predicate: string): boolean {
  return PREDICATES[predicate]?.singleValued ?? false;
}
