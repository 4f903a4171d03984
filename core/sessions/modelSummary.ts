/**
 * `LLM_PROVIDER=openai`: the fold is one JSON-mode chat call (the extraction
 * provider's client and repair loop), validated with zod. Failures come out as
 * the same Temporal failures as extraction's (ModelUnavailable is retried).
 */
import type { Config } from '../config/config.js';
import { createOpenAIClient, DEFAULT_OPENAI_BASE_URL } from '../extraction/openai/client.js';
import { callStructured, type ModelContext } from '../extraction/openai/structured.js';
import type { Logger } from '../logger.js';
import { mergeSummaries, renderSummary, summaryDocSchema, SUMMARY_LIMITS, type SummaryDoc, type SummaryTurn } from './summary.js';

const SYSTEM = `You maintain the running summary of an agent's working session.
You get the summary so far (possibly empty) and the next turns of the conversation.
Return the updated summary as one JSON object: {"decisions": [...], "commitments": [...], "entities": [...], "notes": [...]}, every value an array of strings.
- decisions: every decision taken or agreed, as a self-contained sentence (keep earlier ones).
- commitments: promises, action items and deadlines, with who owes them ("Assistant: will send the draft by Friday").
- entities: the named people, organizations, places, products and projects mentioned, by their full names.
- notes: at most a few sentences on what the session is about and where it stands.
Keep everything from the summary so far. At most ${SUMMARY_LIMITS.decisions} decisions, ${SUMMARY_LIMITS.commitments} commitments, ${SUMMARY_LIMITS.entities} entities, ${SUMMARY_LIMITS.notes} notes.`;

function renderTurns(turns: SummaryTurn[]): string {
  return turns.map((t) => `[turn ${t.turnIndex}] ${t.role}: ${t.content}`).join('\n');
}

export type ModelSummaryConfig = Pick<Config, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'LLM_MODEL' | 'LLM_TIMEOUT_MS'>;

export function createModelContext(config: ModelSummaryConfig, logger: Logger): ModelContext {
  return {
    client: createOpenAIClient(config),
    model: config.LLM_MODEL,
    logger: logger.child({ component: 'session-summary' }),
    endpoint: config.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL,
    timeoutMs: config.LLM_TIMEOUT_MS,
  };
}

export async function foldTurnsWithModel(ctx: ModelContext, previous: SummaryDoc | null, turns: SummaryTurn[]): Promise<SummaryDoc> {
  const { value } = await callStructured(ctx, {
    stage: 'session-summary',
    schema: summaryDocSchema,
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Summary so far:\n${previous ? renderSummary(previous) || '(empty)' : '(empty)'}\n\nNext turns:\n${renderTurns(turns)}` },
    ],
  });
  // Merged onto the previous summary so a model that forgets an earlier item does not lose it.
  return mergeSummaries(previous ?? { decisions: [], commitments: [], entities: [], notes: [] }, value);
}
