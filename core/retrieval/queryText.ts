import { isStopWord, words } from '../text/tokens.js';

const MAX_KEYWORD_TERMS = 48;
const MAX_GRAMS = 48;
const MAX_GRAM_WORDS = 4;

/**
 * An OR query of the query's content words for `to_tsquery('english', …)`:
 * any term may match and ranking rewards documents matching more of them
 * (plainto_tsquery would demand every term). Tokens are letters and digits
 * only, each single-quoted, so no input can inject tsquery syntax; null when
 * nothing searchable is left.
 */
export function keywordTsQuery(query: string): string | null {
  const terms = [...new Set(words(query).filter((w) => w.length > 1 && !isStopWord(w)))].slice(0, MAX_KEYWORD_TERMS);
  return terms.length ? terms.map((t) => `'${t}'`).join(' | ') : null;
}

/** Raw word tokens with their case kept (names are matched against aliases as written). */
function rawTokens(query: string): string[] {
  const matches = query.normalize('NFKC').match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
  return matches.map((w) => w.replace(/['’]s$/i, ''));
}

export interface NameGrams {
  /** Lower-cased 1–4 word spans that neither start nor end with a stop word: candidate `name_key`s. */
  keys: string[];
  /** The same spans as written and lower-cased: candidate aliases. */
  surfaces: string[];
  /** Longer spans worth a trigram (typo-tolerant) match. */
  fuzzy: string[];
}

/** Word spans of the query that could name an entity. */
export function nameGrams(query: string): NameGrams {
  const tokens = rawTokens(query).slice(0, 200);
  const keys = new Set<string>();
  const surfaces = new Set<string>();
  const fuzzy = new Set<string>();
  for (let i = 0; i < tokens.length && keys.size < MAX_GRAMS; i++) {
    for (let n = 1; n <= MAX_GRAM_WORDS && i + n <= tokens.length; n++) {
      const span = tokens.slice(i, i + n);
      const first = span[0].toLowerCase();
      const last = span[n - 1].toLowerCase();
      if (isStopWord(first) || isStopWord(last)) continue;
      const surface = span.join(' ');
      const key = surface.toLowerCase();
      if (key.length < 2) continue;
      keys.add(key);
      surfaces.add(surface);
      surfaces.add(key);
      // Capitalized spans look like names; long spans carry enough trigrams to match reliably.
      if (key.length >= 4 && (n > 1 || /^\p{Lu}/u.test(span[0]))) fuzzy.add(key);
    }
  }
  return { keys: [...keys], surfaces: [...surfaces], fuzzy: [...fuzzy].slice(0, 16) };
}

/** Query words, lower-cased and without stop words: used to centre snippets. */
export function highlightTerms(query: string): string[] {
  return [...new Set(words(query).filter((w) => w.length > 2 && !isStopWord(w)))].slice(0, MAX_KEYWORD_TERMS);
}
