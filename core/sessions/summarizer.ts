import type { Config } from '../config/config.js';
import type { Logger } from '../logger.js';
import type { ModelContext } from '../extraction/openai/structured.js';
import { foldTurnsHeuristically } from './heuristicSummary.js';
import { createModelContext, foldTurnsWithModel } from './modelSummary.js';
import type { SummaryDoc, SummaryTurn } from './summary.js';

/** Folds turns into the running summary: a model call with LLM_PROVIDER=openai, the extractive heuristic otherwise. */
export type SessionSummarizer = (previous: SummaryDoc | null, turns: SummaryTurn[]) => Promise<SummaryDoc>;

export function createSessionSummarizer(
  config: Pick<Config, 'LLM_PROVIDER' | 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'LLM_MODEL' | 'LLM_TIMEOUT_MS'>,
  logger: Logger,
): SessionSummarizer {
  if (config.LLM_PROVIDER !== 'openai') return async (previous, turns) => foldTurnsHeuristically(previous, turns);
  let ctx: ModelContext | undefined;
  return (previous, turns) => foldTurnsWithModel((ctx ??= createModelContext(config, logger)), previous, turns);
}
