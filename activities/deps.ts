import type { Deps } from '../core/deps.js';
import type { ExtractionProvider } from '../core/extraction/types.js';

export interface ActivityDeps extends Deps {
  extractor: ExtractionProvider;
}
