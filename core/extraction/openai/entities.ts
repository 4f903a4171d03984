import { entityExtractionSchema, type EntityCandidate, type EpisodeText, type ModelUsage } from '../types.js';
import { entityExtractionSystem, renderEpisode } from './prompts.js';
import { callStructured, type ModelContext } from './structured.js';

/** Same name listed twice by the model: one candidate, aliases united. */
function dedupe(candidates: EntityCandidate[]): EntityCandidate[] {
  const key = (name: string) => name.trim().toLowerCase();
  const byName = new Map<string, EntityCandidate>();
  for (const candidate of candidates) {
    const existing = byName.get(key(candidate.name));
    if (!existing) byName.set(key(candidate.name), { ...candidate, aliases: [...candidate.aliases] });
    else existing.aliases.push(...candidate.aliases.filter((a) => !existing.aliases.some((b) => key(a) === key(b))));
  }
  for (const candidate of byName.values()) candidate.aliases = candidate.aliases.filter((a) => key(a) !== key(candidate.name));
  return [...byName.values()];
}

/**
 * Stage 1: one call for the text it is given. Long episodes are chunked by
 * the entity-extract activity before they get here.
 */
export async function extractEntities(ctx: ModelContext, episode: EpisodeText): Promise<{ entities: EntityCandidate[]; usage: ModelUsage }> {
  const result = await callStructured(ctx, {
    stage: 'entity-extract',
    schema: entityExtractionSchema,
    messages: [
      { role: 'system', content: entityExtractionSystem(episode) },
      { role: 'user', content: renderEpisode(episode) },
    ],
  });
  return { entities: dedupe(result.value.entities), usage: result.usage };
}
