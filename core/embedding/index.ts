import type { Config } from '../config/config.js';
import type { EmbeddingProvider } from '../extraction/types.js';
import { LocalEmbedder } from './local.js';
import { OpenAIEmbedder } from './openai.js';

export function createEmbedder(config: Config): EmbeddingProvider {
  switch (config.EMBEDDING_PROVIDER) {
    case 'local':
      return new LocalEmbedder(config.EMBEDDING_DIM, config.embeddingModel);
    case 'openai':
      return new OpenAIEmbedder(config);
  }
}
