import { countTokens } from 'gpt-tokenizer';
import { renderedTokenCount } from '../core/retrieval/context.js';

/**
 * The context block's token count is summed from its lines' memoized counts
 * (core/retrieval/context.ts). It must equal counting the rendered text, for
 * whatever a memory's text holds: newlines of its own, trailing spaces,
 * punctuation runs and slashes at a line's end, digits, other scripts.
 */
const FRAGMENTS = [
  'Jack works at Acme.',
  '(confidence 0.93, confirmed 3 days ago)',
  'ends with a slash /',
  'path a/b/c/',
  'trailing spaces   ',
  'a tab\tinside',
  'line one\nline two',
  'blank lines inside\n\n\nthen more',
  'ends with newline\n',
  'ends with spaces and newline  \n',
  '\n starts with a newline',
  '   starts with spaces',
  '12345678 numbers 2025-03-01',
  '…, —, «quotes» and !!!',
  "it's what we're doing, isn't it?",
  'Ärger über Öl in Zürich',
  '東京で寿司を食べた',
  'emoji 🎉🎉 end',
  'https://example.com/x?y=1',
  '))))',
  '- dash',
  '',
];

/** A small deterministic generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function line(r: () => number): string {
  const date = r() < 0.5 ? `[2025-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 10)}] ` : '';
  const who = r() < 0.5 ? 'Ana 3: ' : '';
  const body = Array.from({ length: 1 + Math.floor(r() * 3) }, () => FRAGMENTS[Math.floor(r() * FRAGMENTS.length)]).join(r() < 0.5 ? ' ' : '');
  return `- ${date}${who}${body}`;
}

describe('context block token count', () => {
  it('equals counting the rendered text, over 2,000 generated blocks', () => {
    const r = random(20261128);
    for (let n = 0; n < 2000; n++) {
      const parts: string[][] = [];
      if (r() < 0.8) parts.push(['Known facts (current, most relevant first):', ...Array.from({ length: Math.floor(r() * 6) }, () => line(r))]);
      if (r() < 0.8) parts.push(['Relevant memories:', ...Array.from({ length: Math.floor(r() * 6) }, () => line(r))]);
      const text = parts.map((lines) => lines.join('\n')).join('\n\n');
      expect({ n, text, count: renderedTokenCount(parts) }).toEqual({ n, text, count: countTokens(text) });
    }
  });

  it('is zero for an empty block', () => {
    expect(renderedTokenCount([])).toBe(0);
  });
});
