import { contentStems, words } from '../text/tokens.js';
import type { EmbeddingProvider } from '../extraction/types.js';

/** 32-bit FNV-1a: a fast, well-spread, dependency-free hash for feature hashing. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Deterministic embedder without model weights: feature hashing of stemmed
 * content words, word bigrams and character trigrams into `dim` signed buckets,
 * L2-normalized. Entity names are always embedded this way: resolving "Jon"
 * to "John" is a question of spelling (trigrams tolerate typos and
 * inflections), where a semantic model would call "Paris" close to "London".
 * `EMBEDDING_PROVIDER=hash` also uses it for text, when no model is installed.
 */
export class HashingEmbedder implements EmbeddingProvider {
  constructor(
    readonly dim: number,
    readonly model: string,
  ) {}

  embedOne(text: string): number[] {
    const vector = new Float64Array(this.dim);
    const add = (feature: string, weight: number) => {
      const h = fnv1a(feature);
      const index = h % this.dim;
      const sign = (h >>> 31) & 1 ? -1 : 1;
      vector[index] += sign * weight;
    };
    const stems = contentStems(text);
    for (const stem of stems) add(`w:${stem}`, 1);
    for (let i = 0; i + 1 < stems.length; i++) add(`b:${stems[i]}_${stems[i + 1]}`, 0.5);
    for (const word of words(text)) {
      const padded = `^${word}$`;
      for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, 0.25);
    }
    let norm = 0;
    for (const v of vector) norm += v * v;
    norm = Math.sqrt(norm);
    const out = new Array<number>(this.dim);
    for (let i = 0; i < this.dim; i++) out[i] = norm > 0 ? Number((vector[i] / norm).toFixed(6)) : 0;
    return out;
  }

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((t) => this.embedOne(t));
  }
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
