import type { EmbeddingProvider } from '../core/extraction/types.js';
import type { Logger } from '../core/logger.js';

/**
 * Loads what a first search would otherwise wait for: the query embedder's model
 * (thread, session, one run). The entry points await it before listening, so a
 * ready API answers its first search as fast as the next. Never throws: if the
 * model fails to load here, the first search starts it again and reports that.
 */
export async function warmUpReadPath(embedder: EmbeddingProvider, logger: Logger): Promise<void> {
  if (!embedder.warmUp) return;
  const started = performance.now();
  try {
    await embedder.warmUp();
    logger.debug({ ms: Math.round(performance.now() - started) }, 'embedding model warmed up');
  } catch (err) {
    logger.warn({ err }, 'the embedding model did not warm up; the first search will load it');
  }
}
