import type { Config } from '../config/config.js';
import type { Logger } from '../logger.js';
import { HeuristicProvider } from './heuristic/index.js';
import { OpenAIProvider } from './openai/index.js';
import type { ExtractionProvider } from './types.js';

/** The extraction provider named by LLM_PROVIDER. */
export function createExtractionProvider(config: Config, logger: Logger): ExtractionProvider {
  switch (config.LLM_PROVIDER) {
    case 'heuristic':
      return new HeuristicProvider();
    case 'openai':
      return new OpenAIProvider(config, logger);
  }
}
