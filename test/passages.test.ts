import { episodePassages, MAX_PASSAGES, PASSAGE_MIN_EPISODE_WORDS } from '../core/ingest/passages.js';

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('episodePassages', () => {
  it('leaves short episodes to their own embedding', () => {
    expect(episodePassages({ speaker: 'Ana', content: 'I adopted a cat. Her name is Mochi.' })).toEqual([]);
    const justShort = Array.from({ length: PASSAGE_MIN_EPISODE_WORDS }, () => 'word').join(' ');
    expect(episodePassages({ speaker: null, content: justShort })).toEqual([]);
  });

  it('cuts a longer turn at its sentences, with the speaker like the episode text', () => {
    const content =
      'Also, fortnite is one of my favorite games. I really enjoy how it does all of the skins for marvel superheroes. ' +
      'Dr. Strange looks great, e.g. his cape costs 3.5 dollars in the shop. Anyway I have to go to work now, talk later.';
    expect(episodePassages({ speaker: 'Muhhamed', content })).toEqual([
      'Muhhamed: Also, fortnite is one of my favorite games.',
      'Muhhamed: I really enjoy how it does all of the skins for marvel superheroes.',
      'Muhhamed: Dr. Strange looks great, e.g. his cape costs 3.5 dollars in the shop.',
      'Muhhamed: Anyway I have to go to work now, talk later.',
    ]);
  });

  it('joins fragments to a neighbour so no passage is a bare "Yes!"', () => {
    const content = 'Yes! Totally. I moved to Lisbon in March and started at Northwind as a designer there. Wow. The office has a rooftop garden with lemon trees and a view of the river.';
    const passages = episodePassages({ speaker: null, content });
    expect(passages).toEqual([
      'Yes! Totally. I moved to Lisbon in March and started at Northwind as a designer there.',
      'Wow. The office has a rooftop garden with lemon trees and a view of the river.',
    ]);
  });

  it('keeps every word of a long document in at most MAX_PASSAGES passages', () => {
    const content = Array.from({ length: 500 }, (_, i) => `Sentence number ${i} is about topic ${i}.`).join(' ');
    const passages = episodePassages({ speaker: null, content });
    expect(passages.length).toBeLessThanOrEqual(MAX_PASSAGES);
    expect(passages.length).toBeGreaterThan(MAX_PASSAGES / 2);
    expect(passages.join(' ')).toBe(content);
  });

  it('cuts text without sentence punctuation into pieces the model reads whole', () => {
    const content = Array.from({ length: 1000 }, (_, i) => `w${i}`).join(' ');
    const passages = episodePassages({ speaker: null, content });
    expect(passages).toHaveLength(7);
    expect(Math.max(...passages.map(words))).toBe(150);
    expect(passages.join(' ')).toBe(content);
  });
});
