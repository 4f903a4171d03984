import type { Logger } from '../../logger.js';
import {
  factExtractionSchema,
  type EpisodeText,
  type FactCandidate,
  type ModelUsage,
  type ResolvedEntityRef,
} from '../types.js';
import { factExtractionSystem, renderEntityList, renderEpisode, UNKNOWN_SPEAKER_NAME } from './prompts.js';
import { callStructured, type ModelContext } from './structured.js';

const FIRST_PERSON = new Set(['i', 'me', 'my', 'mine', 'myself']);

/**
 * Maps names the model wrote back to canonical entity names (case, aliases,
 * first-person pronouns), so the commit stage finds the nodes.
 */
function canonicalizer(episode: EpisodeText, entities: ResolvedEntityRef[]) {
  const names = new Map<string, string>();
  for (const e of entities) {
    for (const alias of e.aliases) names.set(alias.trim().toLowerCase(), e.name);
  }
  for (const e of entities) names.set(e.name.trim().toLowerCase(), e.name);
  const speaker = episode.speaker?.trim() || UNKNOWN_SPEAKER_NAME;
  return (name: string): string => {
    const k = name.trim().toLowerCase();
    if (FIRST_PERSON.has(k)) return speaker;
    return names.get(k) ?? names.get(k.replace(/^(the|a|an)\s+/, '')) ?? name.trim();
  };
}

function normalize(facts: FactCandidate[], canonical: (name: string) => string, logger: Logger): FactCandidate[] {
  const out: FactCandidate[] = [];
  for (const fact of facts) {
    if (fact.object === null && fact.value === null) {
      logger.warn({ fact: fact.fact_text }, 'dropping a model fact with neither object nor value');
      continue;
    }
    out.push({
      ...fact,
      subject: canonical(fact.subject),
      object: fact.object === null ? null : canonical(fact.object),
      // An entity object wins: the schema's rule is exactly one of the two.
      value: fact.object === null ? fact.value : null,
    });
  }
  return out;
}

/** Stage 3: one call for the text it is given (the fact-extract activity chunks long episodes). */
export async function extractFacts(
  ctx: ModelContext,
  episode: EpisodeText,
  entities: ResolvedEntityRef[],
): Promise<{ facts: FactCandidate[]; usage: ModelUsage }> {
  const result = await callStructured(ctx, {
    stage: 'fact-extract',
    schema: factExtractionSchema,
    messages: [
      { role: 'system', content: factExtractionSystem(episode) },
      { role: 'user', content: `${renderEntityList(entities)}\n\n${renderEpisode(episode)}` },
    ],
  });
  return { facts: normalize(result.value.facts, canonicalizer(episode, entities), ctx.logger), usage: result.usage };
}
