/** Words that carry no content of their own in a memory or a fact. */
const STOPWORDS = new Set(
  `a an the and or but of to in on at by for with from as is are was were be been being am do does did has have had
  i me my we our you your he him his she her it its they them their this that these those there here then than so
  not no now also just still very too again already about into over after before up down out off what which who whom
  whose where when why how can could will would shall should may might must`.split(/\s+/),
);

/** A crude stem: enough for "works"/"work"/"working" to meet, not a linguistic claim. */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The stemmed content words of a text. */
export function contentWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length > 1 && !STOPWORDS.has(word)) words.add(stem(word));
  }
  return words;
}

/** The share of `text`'s content words that `covering` already says (1 when it has none). */
export function wordCoverage(text: string, covering: Iterable<string>): number {
  const words = contentWords(text);
  if (!words.size) return 1;
  const said = new Set<string>();
  for (const c of covering) for (const w of contentWords(c)) said.add(w);
  return [...words].filter((w) => said.has(w)).length / words.size;
}
