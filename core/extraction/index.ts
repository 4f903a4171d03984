import type { Config } from '../config/config.js';
import type { Logger } from '../logger.js';
import { HeuristicProvider } from './heuristic/index.js';
import { OpenAIProvider } from './openai/index.js';
import { SourceExtractionProvider } from './source/index.js';
import type { ExtractionProvider } from './types.js';
import type { ContentType } from '../sources/contentType.js';

/** The extraction provider named by LLM_PROVIDER. */
export function createExtractionProvider(config: Config, logger: Logger): ExtractionProvider {
  switch (config.LLM_PROVIDER) {
    case 'heuristic':
      return new HeuristicProvider();
    case 'openai':
      return new OpenAIProvider(config, logger);
  }
}

/**
 * The provider of an episode's content type: the configured text provider for
 * text, a source provider (email, calendar, json) around it otherwise.
 */
export function extractorFor(contentType: ContentType, text: ExtractionProvider): ExtractionProvider {
  return contentType === 'text' ? text : new SourceExtractionProvider(contentType, text);
}
