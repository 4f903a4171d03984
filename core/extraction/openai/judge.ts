import { NO_USAGE, resolutionSchema, type EpisodeText, type ModelUsage, type ResolutionDecision, type ResolutionItem } from '../types.js';
import { ENTITY_JUDGEMENT_SYSTEM, renderEpisode, renderResolutionItems } from './prompts.js';
import { callStructured, type ModelContext } from './structured.js';

type Resolution = { decisions: ResolutionDecision[] };

/** The model may only pick an id it was shown for that candidate, and must answer for each one. */
function checkDecisions(items: ResolutionItem[]) {
  return (value: Resolution): string | null => {
    const problems: string[] = [];
    const seen = new Set<number>();
    for (const decision of value.decisions) {
      const item = items.find((i) => i.index === decision.index);
      if (!item) {
        problems.push(`index ${decision.index} is not one of the candidates`);
        continue;
      }
      if (seen.has(decision.index)) problems.push(`index ${decision.index} is decided twice`);
      seen.add(decision.index);
      if (decision.match_id !== null && !item.nearest.some((e) => e.id === decision.match_id)) {
        problems.push(`match_id ${JSON.stringify(decision.match_id)} for index ${decision.index} is not one of its stored entities`);
      }
    }
    const missing = items.filter((i) => !seen.has(i.index)).map((i) => i.index);
    if (missing.length) problems.push(`no decision for index ${missing.join(', ')}`);
    return problems.length ? problems.join('; ') : null;
  };
}

/**
 * Stage 2: one batched same-or-new judgement per episode. Candidates with no
 * stored neighbour are new without asking; no call at all when none has one.
 */
export async function judgeEntities(
  ctx: ModelContext,
  episode: EpisodeText,
  items: ResolutionItem[],
): Promise<{ decisions: ResolutionDecision[]; usage: ModelUsage }> {
  const ask = items.filter((i) => i.nearest.length > 0);
  const decided = new Map<number, string | null>(items.map((i) => [i.index, null]));
  let usage = NO_USAGE;
  if (ask.length > 0) {
    const result = await callStructured(ctx, {
      stage: 'entity-resolve',
      schema: resolutionSchema,
      check: checkDecisions(ask),
      messages: [
        { role: 'system', content: ENTITY_JUDGEMENT_SYSTEM },
        // The episode goes last, as in every stage, so the text can be found by its closing fence.
        { role: 'user', content: `${renderResolutionItems(ask)}\n\n${renderEpisode(episode)}` },
      ],
    });
    usage = result.usage;
    for (const d of result.value.decisions) decided.set(d.index, d.match_id);
  }
  return { decisions: items.map((i) => ({ index: i.index, match_id: decided.get(i.index) ?? null })), usage };
}
