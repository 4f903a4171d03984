import { CONVERSATION_CANDIDATES, NEIGHBOUR_SOURCES, rerankByConversation, type ConversationLinks, type EpisodeLinks } from '../core/retrieval/conversation.js';
import type { Fused } from '../core/retrieval/fusion.js';

const episode = (id: string, score: number): Fused => ({ kind: 'episode', id, score, matchedBy: ['keyword'] });
const fact = (id: string, score: number): Fused => ({ kind: 'fact', id, score, matchedBy: ['graph'] });
const turn = (links: Partial<EpisodeLinks> = {}): EpisodeLinks => ({ namedSpeaker: false, answerTyped: false, previous: null, next: null, ...links });
const linksOf = (
  episodes: Record<string, EpisodeLinks>,
  factEpisodes: Record<string, string[]> = {},
  answerTypedFacts: string[] = [],
  namedSubjectFacts: string[] = [],
): ConversationLinks => ({
  episodes: new Map(Object.entries(episodes)),
  factEpisodes: new Map(Object.entries(factEpisodes)),
  answerTypedFacts: new Set(answerTypedFacts),
  namedSubjectFacts: new Set(namedSubjectFacts),
});
const scoresOf = (ranked: Fused[]) => Object.fromEntries(ranked.map((f) => [`${f.kind}:${f.id}`, Number(f.score.toFixed(6))]));

describe('conversation re-ranking (pure)', () => {
  it('changes nothing when both knobs are off', () => {
    const fused = [episode('a', 0.05), episode('b', 0.04), fact('f', 0.03)];
    const links = linksOf({ a: turn({ next: 'z' }), b: turn({ namedSpeaker: true }) });
    expect(rerankByConversation(fused, links, { neighbour_weight: 0, speaker_boost: 0, answer_type_boost: 0, direct_answer_boost: 0 })).toEqual(fused);
  });

  it("boosts the named speaker's turns and re-sorts, leaving facts and others as they were", () => {
    const fused = [episode('a', 0.05), episode('b', 0.045), fact('f', 0.044)];
    const ranked = rerankByConversation(fused, linksOf({ a: turn(), b: turn({ namedSpeaker: true }) }), { neighbour_weight: 0, speaker_boost: 0.2, answer_type_boost: 0, direct_answer_boost: 0 });
    expect(ranked.map((f) => f.id)).toEqual(['b', 'a', 'f']);
    expect(scoresOf(ranked)).toEqual({ 'episode:b': 0.054, 'episode:a': 0.05, 'fact:f': 0.044 });
    // The input list is not mutated.
    expect(fused[1].score).toBe(0.045);
  });

  it('boosts turns and facts of the expected answer type, and multiplies that with the speaker boost', () => {
    const fused = [episode('a', 0.05), episode('b', 0.045), episode('c', 0.04), fact('f', 0.039), fact('g', 0.038)];
    const links = linksOf({ a: turn(), b: turn({ answerTyped: true }), c: turn({ answerTyped: true, namedSpeaker: true }) }, {}, ['f']);
    const ranked = rerankByConversation(fused, links, { neighbour_weight: 0, speaker_boost: 0.2, answer_type_boost: 0.5, direct_answer_boost: 0 });
    expect(scoresOf(ranked)).toEqual({ 'episode:c': 0.072, 'episode:b': 0.0675, 'fact:f': 0.0585, 'episode:a': 0.05, 'fact:g': 0.038 });
    expect(ranked.map((f) => f.id)).toEqual(['c', 'b', 'f', 'a', 'g']);
  });

  it('boosts typed facts about an entity the query names once more, as direct answers; untyped facts about it not at all', () => {
    // "Where does Ana work?": Ana's own turn about Carla's job outscored the fact about Ana's.
    const fused = [episode('carla-turn', 0.05), fact('ana-works', 0.044), fact('carla-works', 0.043), fact('ana-likes', 0.037)];
    const links = linksOf({ 'carla-turn': turn({ namedSpeaker: true, answerTyped: true }) }, {}, ['ana-works', 'carla-works'], ['ana-works', 'ana-likes']);
    const recipe = { neighbour_weight: 0, speaker_boost: 0.2, answer_type_boost: 0.3 };
    const off = rerankByConversation(fused, links, { ...recipe, direct_answer_boost: 0 });
    expect(off.map((f) => f.id)).toEqual(['carla-turn', 'ana-works', 'carla-works', 'ana-likes']);
    const on = rerankByConversation(fused, links, { ...recipe, direct_answer_boost: 0.5 });
    expect(scoresOf(on)).toEqual({ 'fact:ana-works': 0.0858, 'episode:carla-turn': 0.078, 'fact:carla-works': 0.0559, 'fact:ana-likes': 0.037 });
    expect(on.map((f) => f.id)).toEqual(['ana-works', 'carla-turn', 'carla-works', 'ana-likes']);
  });

  it('boosts only within the candidates whose links were loaded', () => {
    const fused = Array.from({ length: CONVERSATION_CANDIDATES + 1 }, (_, i) => episode(`e${String(i).padStart(3, '0')}`, 1 - i * 0.001));
    const last = fused[CONVERSATION_CANDIDATES].id;
    const links = linksOf(Object.fromEntries(fused.map((f) => [f.id, turn({ namedSpeaker: f.id === last })])));
    const ranked = rerankByConversation(fused, links, { neighbour_weight: 0, speaker_boost: 5, answer_type_boost: 0, direct_answer_boost: 0 });
    expect(ranked[ranked.length - 1].id).toBe(last);
  });

  it('lifts the turns around the best candidates; a turn found only that way has no matching signal', () => {
    const fused = [episode('a', 0.1), episode('n2', 0.01)];
    const links = linksOf({ a: turn({ previous: 'n1', next: 'n2' }), n2: turn() });
    const ranked = rerankByConversation(fused, links, { neighbour_weight: 0.2, speaker_boost: 0, answer_type_boost: 0, direct_answer_boost: 0 });
    expect(scoresOf(ranked)).toEqual({ 'episode:a': 0.1, 'episode:n2': 0.03, 'episode:n1': 0.02 });
    expect(ranked.map((f) => f.id)).toEqual(['a', 'n2', 'n1']);
    expect(ranked.find((f) => f.id === 'n1')?.matchedBy).toEqual([]);
    expect(ranked.find((f) => f.id === 'n2')?.matchedBy).toEqual(['keyword']);
  });

  it('sums lifts from both sides and lets a fact lift the turns around the episode it came from', () => {
    // x sits between a and b; the fact came from c, whose own score is lower than the fact's.
    const fused = [episode('a', 0.1), fact('f', 0.08), episode('b', 0.05), episode('c', 0.01)];
    const links = linksOf(
      { a: turn({ next: 'x' }), b: turn({ previous: 'x' }), c: turn({ next: 'y' }) },
      { f: ['c'] },
    );
    const ranked = rerankByConversation(fused, links, { neighbour_weight: 0.5, speaker_boost: 0, answer_type_boost: 0, direct_answer_boost: 0 });
    expect(scoresOf(ranked)).toMatchObject({ 'episode:x': 0.075, 'episode:y': 0.04 });
  });

  it(`takes neighbours of the best ${NEIGHBOUR_SOURCES} candidates only`, () => {
    const fused = Array.from({ length: NEIGHBOUR_SOURCES + 1 }, (_, i) => episode(`e${String(i).padStart(2, '0')}`, 1 - i * 0.01));
    const links = linksOf(Object.fromEntries(fused.map((f) => [f.id, turn({ next: `after-${f.id}` })])));
    const ids = rerankByConversation(fused, links, { neighbour_weight: 0.2, speaker_boost: 0, answer_type_boost: 0, direct_answer_boost: 0 }).map((f) => f.id);
    expect(ids).toContain(`after-${fused[NEIGHBOUR_SOURCES - 1].id}`);
    expect(ids).not.toContain(`after-${fused[NEIGHBOUR_SOURCES].id}`);
  });
});
