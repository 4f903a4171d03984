import { HeuristicProvider } from '../core/extraction/heuristic/index.js';
import { canonicalName, nameKey, namesOverlap } from '../core/domain/canonical.js';
import type { ExistingEntity, ResolutionItem } from '../core/extraction/types.js';

/** Entity resolution (same-or-new) and name canonicalization. */

const provider = new HeuristicProvider();
const episode = { text: 'irrelevant', speaker: null, occurredAt: '2026-01-01T00:00:00Z' };

function existing(id: string, name: string, type: string, similarity: number, aliases: string[] = []): ExistingEntity {
  return { id, name, type, aliases, similarity };
}

async function judge(items: ResolutionItem[]) {
  const { decisions, usage } = await provider.judgeEntities(episode, items);
  expect(usage).toEqual({ modelCalls: 0, tokensIn: 0, tokensOut: 0 });
  return decisions;
}

describe('judgeEntities', () => {
  it('matches an exact name, case-insensitively, of the same type', async () => {
    const decisions = await judge([
      { index: 0, candidate: { name: 'stefan', type: 'person', aliases: [] }, nearest: [existing('e1', 'Stefan', 'person', 1)] },
    ]);
    expect(decisions).toEqual([{ index: 0, match_id: 'e1' }]);
  });

  it('matches through aliases on either side ("The CEO" = "CEO")', async () => {
    const decisions = await judge([
      { index: 0, candidate: { name: 'CEO', type: 'person', aliases: ['The CEO'] }, nearest: [existing('e7', 'Chief Executive', 'person', 0.4, ['the CEO'])] },
      { index: 1, candidate: { name: 'Acme', type: 'organization', aliases: [] }, nearest: [existing('e8', 'Acme Corp', 'organization', 0.8, ['Acme'])] },
    ]);
    expect(decisions).toEqual([
      { index: 0, match_id: 'e7' },
      { index: 1, match_id: 'e8' },
    ]);
  });

  it('accepts an exact match of a compatible type ("other" is compatible with anything)', async () => {
    const decisions = await judge([
      { index: 0, candidate: { name: 'Max', type: 'other', aliases: [] }, nearest: [existing('p', 'Max', 'person', 1)] },
      { index: 1, candidate: { name: 'Premex', type: 'organization', aliases: [] }, nearest: [existing('o', 'Premex', 'other', 1)] },
    ]);
    expect(decisions.map((d) => d.match_id)).toEqual(['p', 'o']);
  });

  it('refuses an exact name of an incompatible type (Paris the person vs Paris the place)', async () => {
    const decisions = await judge([
      { index: 0, candidate: { name: 'Paris', type: 'place', aliases: [] }, nearest: [existing('x', 'Paris', 'person', 1)] },
    ]);
    expect(decisions).toEqual([{ index: 0, match_id: null }]);
  });

  it('matches a near name (similarity ≥ 0.9) only with the same type', async () => {
    const decisions = await judge([
      { index: 0, candidate: { name: 'Beacon Capital LLC', type: 'organization', aliases: [] }, nearest: [existing('b', 'Beacon Capital', 'organization', 0.93)] },
      { index: 1, candidate: { name: 'Beacon Capital LLC', type: 'organization', aliases: [] }, nearest: [existing('b', 'Beacon Capital', 'place', 0.93)] },
      { index: 2, candidate: { name: 'Beacon Hill', type: 'organization', aliases: [] }, nearest: [existing('b', 'Beacon Capital', 'organization', 0.7)] },
    ]);
    expect(decisions.map((d) => d.match_id)).toEqual(['b', null, null]);
  });

  it('prefers the nearest exact match and is deterministic on ties', async () => {
    const nearest = [existing('far', 'Alice', 'person', 0.95), existing('near', 'alice', 'person', 1), existing('twin', 'ALICE', 'person', 1)];
    const decisions = await judge([{ index: 3, candidate: { name: 'Alice', type: 'person', aliases: [] }, nearest }]);
    expect(decisions).toEqual([{ index: 3, match_id: 'near' }]);
  });

  it('a full name beats a shared first name: "Aurora Lopez" (called "Aurora") is Aurora Lopez, whoever the lookup listed first', async () => {
    const chen = existing('chen', 'Aurora Chen', 'person', 1, ['Aurora']);
    const lopez = existing('lopez', 'Aurora Lopez', 'person', 1, ['Aurora']);
    const candidate = { name: 'Aurora Lopez', type: 'person' as const, aliases: ['Aurora'] };
    const decisions = await judge([
      { index: 0, candidate, nearest: [chen, lopez] },
      { index: 1, candidate, nearest: [lopez, chen] },
    ]);
    expect(decisions.map((d) => d.match_id)).toEqual(['lopez', 'lopez']);
  });

  it('two different full names sharing only an alias are two people: a new Aurora Lopez does not join Aurora Chen', async () => {
    const decisions = await judge([
      { index: 0, candidate: { name: 'Aurora Lopez', type: 'person', aliases: ['Aurora'] }, nearest: [existing('chen', 'Aurora Chen', 'person', 1, ['Aurora'])] },
      // One side's name is the other's alias: still the same.
      { index: 1, candidate: { name: 'Aurora', type: 'person', aliases: [] }, nearest: [existing('chen', 'Aurora Chen', 'person', 1, ['Aurora'])] },
      { index: 2, candidate: { name: 'Robert Smith', type: 'person', aliases: ['Bob Smith'] }, nearest: [existing('bob', 'Bob Smith', 'person', 1)] },
      // Only aliases shared, one name a single word: the same (a nickname known on both sides).
      { index: 3, candidate: { name: 'Robbie', type: 'person', aliases: ['Bob'] }, nearest: [existing('bob', 'Bob Smith', 'person', 1, ['Bob'])] },
    ]);
    expect(decisions.map((d) => d.match_id)).toEqual([null, 'chen', 'bob', 'bob']);
  });

  it('answers new when there is no neighbour, one decision per item', async () => {
    const decisions = await judge([
      { index: 0, candidate: { name: 'Nobody', type: 'person', aliases: [] }, nearest: [] },
      { index: 1, candidate: { name: 'Turin', type: 'place', aliases: [] }, nearest: [existing('t', 'Turin', 'place', 1)] },
    ]);
    expect(decisions).toEqual([
      { index: 0, match_id: null },
      { index: 1, match_id: 't' },
    ]);
  });
});

describe('canonical names', () => {
  it.each([
    ['The CEO', 'CEO'],
    ['the Aurora plan', 'Aurora plan'],
    ['my sister', 'sister'],
    ['  Acme Corp. ', 'Acme Corp'],
    ["Giulia's", 'Giulia'],
    ['“Project Phoenix”', 'Project Phoenix'],
    ['The', 'The'],
    ['an apple', 'apple'],
  ])('%s → %s', (surface, name) => {
    expect(canonicalName(surface)).toBe(name);
  });

  it('keys fold case, determiners and punctuation', () => {
    expect(nameKey('The CEO')).toBe('ceo');
    expect(nameKey('Acme Corp.')).toBe(nameKey('acme corp'));
    expect(nameKey('Acme’s')).toBe(nameKey("acme's"));
    expect(namesOverlap(['CEO', 'The CEO'], ['the ceo'])).toBe(true);
    expect(namesOverlap(['Alice'], ['Alicia'])).toBe(false);
  });
});
