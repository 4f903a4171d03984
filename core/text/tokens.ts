import { stemmer } from 'stemmer';

// A small English stop-word list: these words carry no topic, so they should not pull vectors together.
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her hers him his how i if in into is it its ' +
    'just me my of on or our ours she so than that the their them then there these they this those to too us was we were what ' +
    'when where which while who whom why will with would you your yours yeah yes oh ok okay um uh like really very also about ' +
    'all am any because being both each few more most other some such only own same should now not no nor off out over under again ' +
    'further once here up down s t don'
  ).split(/\s+/),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** Lower-cased word tokens (letters, digits, inner apostrophes), possessive 's removed. */
export function words(text: string): string[] {
  const matches = text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [];
  return matches.map((w) => w.replace(/'s$/, '').replace(/'/g, ''));
}

/** Content words, stemmed: the vocabulary both the embedder and keyword queries share. */
export function contentStems(text: string): string[] {
  return words(text)
    .filter((w) => !isStopWord(w))
    .map((w) => stemmer(w));
}
