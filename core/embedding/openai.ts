import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import type { Config } from '../config/config.js';
import { callModel, createOpenAIClient, DEFAULT_OPENAI_BASE_URL, type ModelTarget } from '../extraction/openai/client.js';
import { MODEL_FAILURE_TYPES } from '../extraction/openai/errors.js';
import type { EmbeddingProvider } from '../extraction/types.js';

/** OpenAI accepts up to 2048 inputs per call; local servers are happier with fewer. */
export const EMBEDDING_BATCH_SIZE = 256;

export type OpenAIEmbedderConfig = Pick<Config, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'LLM_TIMEOUT_MS' | 'EMBEDDING_DIM' | 'embeddingModel'>;

/**
 * `EMBEDDING_PROVIDER=openai`: any OpenAI-compatible embeddings endpoint. The
 * vector columns have a fixed width, so an answer of any other width is
 * refused (non-retryable) instead of failing later inside an INSERT.
 */
export class OpenAIEmbedder implements EmbeddingProvider {
  readonly model: string;
  readonly dim: number;
  private readonly client: OpenAI;
  private readonly context: ModelTarget;

  constructor(config: OpenAIEmbedderConfig) {
    this.model = config.embeddingModel;
    this.dim = config.EMBEDDING_DIM;
    this.client = createOpenAIClient(config);
    this.context = { endpoint: config.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL, timeoutMs: config.LLM_TIMEOUT_MS };
  }

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += EMBEDDING_BATCH_SIZE) {
      out.push(...(await this.embedBatch(texts.slice(i, i + EMBEDDING_BATCH_SIZE))));
    }
    return out;
  }

  private async embedBatch(input: string[]): Promise<number[][]> {
    // 'float' explicitly: the SDK would otherwise ask for base64, which some local servers lack.
    const response = await callModel(this.context, (signal) =>
      this.client.embeddings.create({ model: this.model, input, dimensions: this.dim, encoding_format: 'float' }, { signal }),
    );
    if (response.data.length !== input.length) {
      throw this.shapeFailure(`embedding endpoint returned ${response.data.length} vectors for ${input.length} inputs`);
    }
    const vectors = new Array<number[]>(input.length);
    for (const item of response.data) {
      if (item.embedding.length !== this.dim) {
        throw this.shapeFailure(
          `embedding model ${this.model} returned vectors of dimension ${item.embedding.length}, expected EMBEDDING_DIM=${this.dim}`,
        );
      }
      if (!Number.isInteger(item.index) || item.index < 0 || item.index >= input.length || vectors[item.index]) {
        throw this.shapeFailure(`embedding endpoint returned a duplicate or out-of-range index ${item.index}`);
      }
      vectors[item.index] = item.embedding;
    }
    return vectors;
  }

  private shapeFailure(message: string): ApplicationFailure {
    return ApplicationFailure.nonRetryable(message, MODEL_FAILURE_TYPES.badEmbedding);
  }
}
