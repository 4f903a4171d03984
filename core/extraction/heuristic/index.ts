import { nameKey } from '../../domain/canonical.js';
import { resolveFactTimes, type FactTimeInput } from '../../domain/temporal.js';
import {
  NO_USAGE, factCandidateSchema, type EntityCandidate, type EpisodeText, type ExtractionProvider, type FactCandidate, type ModelUsage,
  type ResolutionDecision, type ResolutionItem, type ResolvedEntityRef,
} from '../types.js';
import { analyze } from './analyze.js';
import { familyOf } from './frames.js';
import { judgeItem } from './resolve.js';
import { boundsAState, heldText, renderFactText, type FactTextParts } from './text.js';

/**
 * The offline extraction provider (LLM_PROVIDER=heuristic): compromise for
 * sentences, tags and names, chrono-node for dates, a predicate pattern table
 * for relations, pronoun resolution to the last person or the speaker.
 * Deterministic and pure: the same episode always gives the same output.
 */
export class HeuristicProvider implements ExtractionProvider {
  readonly name = 'heuristic' as const;
  readonly usesNetwork = false;

  async extractEntities(episode: EpisodeText): Promise<{ entities: EntityCandidate[]; usage: ModelUsage }> {
    // The stage schema caps a batch at 200 entities; the most used come first in text order anyway.
    // Copies: the analysis is memoized, callers must not be able to change it.
    const entities = analyze(episode.text, episode.speaker).entities.slice(0, 200).map((e) => ({ ...e, aliases: [...e.aliases] }));
    return { entities, usage: { ...NO_USAGE } };
  }

  async judgeEntities(_episode: EpisodeText, items: ResolutionItem[]): Promise<{ decisions: ResolutionDecision[]; usage: ModelUsage }> {
    return { decisions: items.map(judgeItem), usage: { ...NO_USAGE } };
  }

  async extractFacts(episode: EpisodeText, entities: ResolvedEntityRef[]): Promise<{ facts: FactCandidate[]; usage: ModelUsage }> {
    return { facts: extractFactsSync(episode, entities), usage: { ...NO_USAGE } };
  }
}

/** Map the analysis' entity keys onto the resolved entities the workflow passes in (by name or alias). */
function nameResolver(entities: ResolvedEntityRef[]): (names: string[]) => string | null {
  const byKey = new Map<string, string>();
  for (const e of entities) for (const n of [e.name, ...e.aliases]) if (!byKey.has(nameKey(n))) byKey.set(nameKey(n), e.name);
  return (names) => {
    for (const n of names) {
      const hit = byKey.get(nameKey(n));
      if (hit) return hit;
    }
    return null;
  };
}

/**
 * Whether an asserted fact's own time phrase ends it before the episode was told ("from 2010 to 2014", "until 2021").
 * Only phrases that can end a state are resolved: the others render alike either way.
 */
function endedBeforeTelling(f: FactTimeInput, episode: EpisodeText): boolean {
  if (f.negated || !boundsAState(f.time_expression)) return false;
  const { invalid_at } = resolveFactTimes(f, episode.occurredAt, null, episode.timezone);
  return invalid_at !== null && invalid_at <= new Date(episode.occurredAt).toISOString();
}

export function extractFactsSync(episode: EpisodeText, entities: ResolvedEntityRef[]): FactCandidate[] {
  const analysis = analyze(episode.text, episode.speaker);
  const find = nameResolver(entities);
  const namesOf = (key: string): string[] => {
    const rec = analysis.table.get(key);
    return rec ? [rec.name, ...rec.aliases] : [key];
  };
  const out: FactCandidate[] = [];
  for (const f of analysis.facts) {
    const subject = find(namesOf(f.subject));
    if (!subject) continue;
    let object: string | null = null;
    let value = f.value;
    if (f.object) {
      object = find(namesOf(f.object));
      // An object the resolver dropped still carries its meaning as a literal.
      if (!object) value = analysis.table.nameOf(f.object);
    }
    if (!object && !value) continue;
    const parts: FactTextParts = {
      subject,
      predicate: f.predicate,
      negated: f.negated,
      kind: f.memory_kind,
      object: object ?? value ?? '',
      eventVerb: f.eventVerb,
      time: f.time_expression,
      detail: f.detail,
      endedBeforeTelling: endedBeforeTelling(f, episode),
      ended: !!f.ended,
      heldThen: !!f.heldThen,
      deniedThen: !!f.deniedThen,
    };
    const fact_text = renderFactText(parts);
    const parsed = factCandidateSchema.safeParse({
      subject,
      predicate: f.predicate,
      predicate_raw: f.predicate_raw,
      family: familyOf(f.predicate),
      object,
      value: object ? null : value,
      fact_text,
      memory_kind: f.memory_kind,
      importance: f.importance,
      confidence: f.confidence,
      negated: f.negated,
      held_text: f.ended ? heldText(parts) : null,
      ...(f.heldThen ? { held_then: true } : {}),
      time_expression: f.time_expression,
    });
    if (parsed.success) out.push(parsed.data);
  }
  return out.slice(0, 200);
}
