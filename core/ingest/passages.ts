import type { Turn } from './episodeEmbedding.js';

/** Episodes up to this many words are covered by their one embedding. */
export const PASSAGE_MIN_EPISODE_WORDS = 30;
/** Passages per episode at most: a long document's sentences are grouped to fit. */
export const MAX_PASSAGES = 64;
/** Shorter sentences join their neighbour: a fragment ("Yes!") says too little to be matched alone. */
const MIN_PASSAGE_WORDS = 8;
/** Longer runs without sentence punctuation (transcripts) are cut, so no passage outgrows the model's 256-token window. */
const MAX_PASSAGE_WORDS = 150;

// Intl.Segmenter (ICU, built into Node) knows abbreviations, decimals and quotes: no hand-written sentence regex.
const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

const wordsOf = (text: string): string[] => text.split(/\s+/).filter(Boolean);

function sentences(content: string): string[][] {
  const out: string[][] = [];
  for (const { segment } of sentenceSegmenter.segment(content)) {
    const words = wordsOf(segment);
    for (let i = 0; i < words.length; i += MAX_PASSAGE_WORDS) out.push(words.slice(i, i + MAX_PASSAGE_WORDS));
  }
  return out;
}

/**
 * The passages a longer episode is also embedded from, sentence by sentence
 * (grouped so there are at most MAX_PASSAGES), each with the speaker like the
 * episode's own embedding text. One vector for a whole long episode blurs
 * what each sentence says, and the model reads only its first 256 tokens;
 * the vector signal scores an episode by its closest passage as well. Empty
 * when the episode's own embedding covers it (short, or a single sentence).
 */
export function episodePassages(turn: Turn): string[] {
  const total = wordsOf(turn.content).length;
  if (total <= PASSAGE_MIN_EPISODE_WORDS) return [];
  const target = Math.max(MIN_PASSAGE_WORDS, Math.ceil(total / MAX_PASSAGES));
  const passages: string[][] = [];
  let current: string[] = [];
  for (const sentence of sentences(turn.content)) {
    if (current.length && current.length + sentence.length > MAX_PASSAGE_WORDS) {
      passages.push(current);
      current = [];
    }
    current.push(...sentence);
    if (current.length >= target) {
      passages.push(current);
      current = [];
    }
  }
  if (current.length) {
    const last = passages[passages.length - 1];
    if (last && current.length < target && last.length + current.length <= MAX_PASSAGE_WORDS) last.push(...current);
    else passages.push(current);
  }
  if (passages.length < 2) return [];
  const prefix = turn.speaker ? `${turn.speaker}: ` : '';
  return passages.slice(0, MAX_PASSAGES).map((words) => prefix + words.join(' '));
}
