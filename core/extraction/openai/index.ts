import type { Config } from '../../config/config.js';
import type { Logger } from '../../logger.js';
import type {
  EntityCandidate,
  EpisodeText,
  ExtractionProvider,
  FactCandidate,
  ModelUsage,
  ResolutionDecision,
  ResolutionItem,
  ResolvedEntityRef,
} from '../types.js';
import { createOpenAIClient, DEFAULT_OPENAI_BASE_URL } from './client.js';
import { extractEntities } from './entities.js';
import { extractFacts } from './facts.js';
import { judgeEntities } from './judge.js';
import type { ModelContext } from './structured.js';

export { classifyModelError, MODEL_FAILURE_TYPES } from './errors.js';
export { MAX_REPAIR_ATTEMPTS } from './structured.js';

export type OpenAIProviderConfig = Pick<Config, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'LLM_MODEL' | 'LLM_TIMEOUT_MS'>;

/**
 * `LLM_PROVIDER=openai`: the three model-backed stages as JSON-mode chat calls
 * against any OpenAI-compatible endpoint. Errors come out as Temporal
 * ApplicationFailures: ModelUnavailable (retryable), ModelRequestRejected and
 * MalformedModelOutput (non-retryable).
 */
export class OpenAIProvider implements ExtractionProvider {
  readonly name = 'openai' as const;
  readonly usesNetwork = true;
  private readonly ctx: ModelContext;

  constructor(config: OpenAIProviderConfig, logger: Logger) {
    this.ctx = {
      client: createOpenAIClient(config),
      model: config.LLM_MODEL,
      logger: logger.child({ component: 'openai-provider' }),
      endpoint: config.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL,
      timeoutMs: config.LLM_TIMEOUT_MS,
    };
  }

  extractEntities(episode: EpisodeText): Promise<{ entities: EntityCandidate[]; usage: ModelUsage }> {
    return extractEntities(this.ctx, episode);
  }

  judgeEntities(episode: EpisodeText, items: ResolutionItem[]): Promise<{ decisions: ResolutionDecision[]; usage: ModelUsage }> {
    return judgeEntities(this.ctx, episode, items);
  }

  extractFacts(episode: EpisodeText, entities: ResolvedEntityRef[]): Promise<{ facts: FactCandidate[]; usage: ModelUsage }> {
    return extractFacts(this.ctx, episode, entities);
  }
}
