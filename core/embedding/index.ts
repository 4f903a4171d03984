import type { Config } from '../config/config.js';
import { HASH_EMBEDDING_MODEL, SCHEMA_EMBEDDING_DIM } from '../config/config.js';
import type { EmbeddingProvider } from '../extraction/types.js';
import { HashingEmbedder } from './hashing.js';
import { OnnxEmbedder } from './onnxModel.js';
import { OpenAIEmbedder } from './openai.js';

/** Embeds episode and fact text, and queries: the vector signal of recall. */
export function createEmbedder(config: Config): EmbeddingProvider {
  switch (config.EMBEDDING_PROVIDER) {
    case 'local':
      return new OnnxEmbedder(config.embeddingModelDir, config.embeddingModel, config.EMBEDDING_DIM);
    case 'hash':
      return new HashingEmbedder(config.EMBEDDING_DIM, config.embeddingModel);
    case 'openai':
      return new OpenAIEmbedder(config);
  }
}

/** Embeds entity names for resolution, whatever the text embedder (see HashingEmbedder). */
export function createNameEmbedder(): EmbeddingProvider {
  return new HashingEmbedder(SCHEMA_EMBEDDING_DIM, HASH_EMBEDDING_MODEL);
}
