import { ENTITY_TYPE_DESCRIPTIONS, ENTITY_TYPES, MEMORY_KINDS, PREDICATE_FAMILIES } from '../../domain/types.js';
import { PREDICATES } from '../../domain/predicates.js';
import { formatInZone } from '../../domain/timezone.js';
import type { EpisodeText, ResolutionItem, ResolvedEntityRef } from '../types.js';

/**
 * The three prompts of the model provider, one per model-backed stage. Each
 * asks for one JSON object whose shape is the zod schema in ../types.ts, and
 * explains every field, because a local model has nothing else to go on.
 */

/** Name used for the speaker when the episode does not say who is talking. */
export const UNKNOWN_SPEAKER_NAME = 'User';

/** Line labels of the user messages; exported so a test stub can read a prompt back. */
export const PROMPT_LABELS = {
  speaker: 'Speaker (who "I/me/my" is): ',
  time: 'Episode time (when it was said or written): ',
  text: 'Text:',
  fence: '"""',
  candidates: 'Candidates:',
  entities: 'Entities (use these names exactly):',
} as const;

const ENTITY_TYPE_HELP = ENTITY_TYPE_DESCRIPTIONS;

function speakerName(episode: EpisodeText): string {
  return episode.speaker?.trim() || UNKNOWN_SPEAKER_NAME;
}

function speakerRule(episode: EpisodeText): string {
  return `The text is written or said by "${speakerName(episode)}": "I", "me", "my", "mine", "myself" refer to ${JSON.stringify(speakerName(episode))}. Never use a pronoun as a name.`;
}

/** The episode as every stage sees it. */
export function renderEpisode(episode: EpisodeText): string {
  return [
    `${PROMPT_LABELS.speaker}${speakerName(episode)}`,
    `${PROMPT_LABELS.time}${episode.timezone ? `${formatInZone(new Date(episode.occurredAt), episode.timezone)} (${episode.timezone})` : episode.occurredAt}`,
    PROMPT_LABELS.text,
    PROMPT_LABELS.fence,
    episode.text,
    PROMPT_LABELS.fence,
  ].join('\n');
}

// ---- stage 1: entity-extract ---------------------------------------------------

export function entityExtractionSystem(episode: EpisodeText): string {
  return [
    'You extract the entities (knowledge-graph nodes) mentioned in a text, for a long-term memory about people and their world.',
    speakerRule(episode),
    'If the text says anything about the speaker, include the speaker as a person entity with exactly that name.',
    '',
    'Answer with one JSON object and nothing else:',
    '{"entities": [{"name": string, "type": string, "aliases": [string]}]}',
    '',
    'Fields:',
    '- name: the canonical name. Drop leading articles and possessives ("The CEO" -> "CEO", "the Aurora plan" -> "Aurora plan", "my sister Anna" -> "Anna"); keep proper names as written with their usual capitalization; singular form.',
    `- type: one of ${ENTITY_TYPES.join(', ')}:`,
    ...ENTITY_TYPES.map((t) => `    ${t}: ${ENTITY_TYPE_HELP[t]}`),
    '- aliases: other surface forms the text uses for the same entity ("the CEO", "Bob" for "Robert Smith"), without the canonical name and without pronouns; [] when none.',
    '',
    'List each entity once. Amounts, dates, durations and plain descriptions ("40 euro per month", "email follow-ups", "last May") are values, not entities. Return {"entities": []} when there are none.',
  ].join('\n');
}

// ---- stage 2: entity-resolve ---------------------------------------------------

export const ENTITY_JUDGEMENT_SYSTEM = [
  'You decide whether entities found in a new text are entities already stored in a memory graph.',
  'For every candidate you get its index, its name, type and aliases, and the most similar stored entities (id, name, type, aliases, similarity from 0 to 1).',
  '',
  'Answer with one JSON object and nothing else:',
  '{"decisions": [{"index": number, "match_id": string | null}]}',
  '',
  'Fields:',
  '- index: the candidate index, exactly as given. Give exactly one decision for every candidate.',
  '- match_id: the id of the stored entity that is the same real-world thing (same person, organization, place...; a nickname, abbreviation, title or alias of it counts), copied exactly from the list of that candidate; null when it is a different thing or you are not sure. Similar names of different things are not a match.',
].join('\n');

export function renderResolutionItems(items: ResolutionItem[]): string {
  const rows = items.map((item) => ({
    index: item.index,
    candidate: { name: item.candidate.name, type: item.candidate.type, aliases: item.candidate.aliases },
    stored: item.nearest.map((e) => ({ id: e.id, name: e.name, type: e.type, aliases: e.aliases, similarity: Number(e.similarity.toFixed(3)) })),
  }));
  return `${PROMPT_LABELS.candidates}\n${JSON.stringify(rows, null, 1)}`;
}

// ---- stage 3: fact-extract -----------------------------------------------------

function predicateCatalogue(): string {
  return PREDICATE_FAMILIES.map((family) => {
    // The description tells a small model what a name means ("advises: mentor, advisor or consultant of ...").
    const names = Object.entries(PREDICATES)
      .filter(([, spec]) => spec.family === family)
      .map(([name, spec]) => `${name} (${spec.description})`);
    return names.length ? `    ${family}: ${names.join(', ')}` : null;
  })
    .filter((line): line is string => line !== null)
    .join('\n');
}

const MEMORY_KIND_HELP: Record<(typeof MEMORY_KINDS)[number], string> = {
  episode: 'something that happened at a point in time: an action, event or change ("Alice joined Beacon Capital")',
  semantic: 'a state or attribute that holds over time ("Alice works at Beacon Capital", "Giulia lives in Turin")',
  viewpoint: "someone's opinion, preference, wish or belief (\"Giulia prefers email follow-ups\")",
};

export function factExtractionSystem(episode: EpisodeText): string {
  return [
    'You extract facts (typed subject-predicate-object triples) from a text, for a long-term memory about people and their world.',
    speakerRule(episode),
    '',
    'Answer with one JSON object and nothing else:',
    '{"facts": [{"subject": string, "predicate": string, "predicate_raw": string, "family": string, "object": string | null, "value": string | null, "fact_text": string, "memory_kind": string, "importance": number, "confidence": number, "negated": boolean, "held_text": string | null, "held_then": boolean, "time_expression": string | null}]}',
    '',
    'Fields:',
    '- subject: who or what the fact is about: one of the entity names given below, spelled exactly as given.',
    '- predicate: the normalized relation in snake_case (lowercase letters, digits, underscores). Use a catalogue predicate when one fits:',
    predicateCatalogue(),
    '  otherwise make up a short snake_case verb phrase.',
    '  A decision ("we decided to move the launch to March") is a decision entity named by what was decided: who took it -> decided -> the decision, and the decision -> concerns -> the project, event or thing it is about.',
    '- predicate_raw: the relation as the text words it ("joined", "is based in", "upgraded to").',
    `- family: one of ${PREDICATE_FAMILIES.join(', ')}; for a catalogue predicate, the family it is listed under.`,
    '- object: the other entity, one of the entity names given below spelled exactly as given; null when the object is a literal value.',
    '- value: the literal object when object is null ("40 euro per month", "email follow-ups", "1990-04-02"); null when object is set. Exactly one of object and value is set.',
    '- fact_text: one self-contained sentence stating the fact, with names spelled out and no pronouns ("Giulia prefers email follow-ups.").',
    '- memory_kind:',
    ...MEMORY_KINDS.map((k) => `    ${k}: ${MEMORY_KIND_HELP[k]}`),
    '  A change yields two facts: the event (episode, e.g. joined, left, moved_to) and the resulting state (semantic, e.g. works_at, lives_in).',
    '- importance: 0 to 1, how much this matters for future conversations (identity, job, home, health, plans: high; small talk: low).',
    '- confidence: 0 to 1, how certain the text is (plain statement 0.9; hedged, hearsay or a guess lower).',
    '- negated: true when the text says the relation does not hold or no longer holds ("isn\'t at Acme anymore" -> works_at Acme with negated true; "doesn\'t like coffee" -> likes coffee with negated true); else false.',
    '- held_text: when negated and the text says the relation held before and has ended ("isn\'t at Acme anymore", "I\'m back from Tokyo"), the sentence that was true while it held, with no time words ("Ana works at Acme.", "Sam is traveling to Tokyo."); null otherwise, and for what never held ("doesn\'t like coffee").',
    '- held_then: true when negated because a state is told in the simple past at a point in time ("I worked at Acme in 2010", "I lived in Paris last year"), or after one ("I lived in Paris after 2010": from then, over by the telling): the time says when it held, not when it ended (fact_text: "Sam worked at Acme in 2010."); false otherwise ("I left Acme in 2010" ended it then).',
    '- time_expression: the words of the text that date this fact, copied verbatim ("last month", "since March", "until 2025", "in 2023", "yesterday"; a range whole: "from 2019 to 2021"); null when the text gives no time. Do not convert it to a date: it is resolved later against the episode time. When an event and its resulting state share a time, give it to both.',
    '',
    'A plan or arrangement for later is not a done event, even in the present tense ("I fly to Tokyo tomorrow", "I start at Stripe next week"): a planned trip is travels_to, and fact_text says it as the future ("Lena will start at Stripe next week."). A return ("I\'m back from Tokyo", "just got back from", "came home from", "I\'m home from") is the visit, and ends the trip: visited, plus travels_to with negated true; said ahead ("I get back from Tokyo next Tuesday") the trip is on now: travels_to, with no start time. A habit ("every Friday", "each summer") dates no single event: leave its time_expression empty.',
    'A mere possibility ("I might move to Denver", "I could live in Oslo", "maybe we\'ll switch") is not a fact: leave it out, or state it as wants when the text says it is wanted.',
    'Only state what the text says. Return {"facts": []} when there are none.',
  ].join('\n');
}

export function renderEntityList(entities: ResolvedEntityRef[]): string {
  const rows = entities.map((e) => ({ name: e.name, type: e.type, aliases: e.aliases }));
  return `${PROMPT_LABELS.entities}\n${JSON.stringify(rows, null, 1)}`;
}
