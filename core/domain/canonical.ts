/**
 * Entity-name canonicalization shared by extraction, resolution and reads:
 * "The CEO" → "CEO", "the Aurora plan" → "Aurora plan", "my sister" → "sister".
 * The surface forms are kept as aliases by the caller; lookups compare `nameKey`s.
 */

// Leading words that never belong to a name: determiners, possessive pronouns, quantifiers.
const LEADING_NOISE = new Set([
  'the', 'a', 'an', 'this', 'that', 'these', 'those', 'my', 'our', 'your', 'his', 'her', 'their', 'its',
  'some', 'any', 'every', 'each', 'another', 'mine', 'ours', 'yours',
]);

const EDGE_PUNCTUATION = /^[\s"'“”‘’`«»()[\]{}<>.,;:!?*_~-]+|[\s"'“”‘’`«»()[\]{}<>.,;:!?*_~-]+$/gu;

/** Curly quotes and odd spaces folded so that "Acme’s" and "Acme's" compare equal. */
export function normalizeSpacing(text: string): string {
  return text.normalize('NFKC').replace(/[’‘`]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, ' ').trim();
}

/** Strip leading determiners/possessives, trailing possessive 's and edge punctuation. */
export function canonicalName(surface: string): string {
  let words = normalizeSpacing(surface).replace(EDGE_PUNCTUATION, '').split(' ').filter(Boolean);
  while (words.length > 1 && LEADING_NOISE.has(words[0].toLowerCase())) words = words.slice(1);
  const name = words.join(' ').replace(/'s$/i, '').replace(EDGE_PUNCTUATION, '');
  return name || normalizeSpacing(surface);
}

/** Comparison key: canonical name, case-folded, inner punctuation dropped ("Acme Corp." = "acme corp"). */
export function nameKey(name: string): string {
  return canonicalName(name)
    .toLowerCase()
    .replace(/[.,'"]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** True when any of the names in `a` and `b` share a key (canonical name or alias match). */
export function namesOverlap(a: readonly string[], b: readonly string[]): boolean {
  const keys = new Set(a.map(nameKey));
  return b.some((n) => keys.has(nameKey(n)));
}
