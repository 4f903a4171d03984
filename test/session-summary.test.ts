import fc from 'fast-check';
import { foldTurnsHeuristically, summarizeTurns } from '../core/sessions/heuristicSummary.js';
import { mergeSummaries, parseSummary, renderSummary, summaryAdditions, SUMMARY_LIMITS, type SummaryDoc, type SummaryTurn } from '../core/sessions/summary.js';

const turn = (turnIndex: number, role: SummaryTurn['role'], content: string): SummaryTurn => ({ turnIndex, role, content });

/** Twenty-one turns: a named person, organization and place and a decision early, small talk after. */
function conversation(): SummaryTurn[] {
  const turns = [
    turn(0, 'user', 'We need a storage plan for the Orion project. Priya Sharma from Helix Labs in Berlin will review it.'),
    turn(1, 'assistant', 'We decided to use PostgreSQL for the event store.'),
    turn(2, 'user', 'Good. I will send the migration plan to Priya by Friday.'),
  ];
  for (let i = 3; i < 21; i++) turns.push(turn(i, i % 2 ? 'assistant' : 'user', i % 2 ? 'Noted, anything else?' : 'Let me think about the cache sizes.'));
  return turns;
}

describe('heuristic session summarizer', () => {
  it('keeps the decisions, named entities and commitments of the folded turns', () => {
    const doc = summarizeTurns(conversation().slice(0, 11));
    expect(doc.decisions).toEqual(['We decided to use PostgreSQL for the event store.']);
    expect(doc.commitments).toEqual([
      'User: Priya Sharma from Helix Labs in Berlin will review it.',
      'User: I will send the migration plan to Priya by Friday.',
    ]);
    expect(doc.entities).toEqual(expect.arrayContaining(['Priya Sharma', 'Helix Labs', 'Berlin', 'PostgreSQL']));
    // "Priya" alone is the same person as "Priya Sharma".
    expect(doc.entities).not.toContain('Priya');
    expect(doc.notes[0]).toMatch(/^Turn 0 \(user\): We need a storage plan for the Orion project\./);
  });

  it('a decision and an entity of the first turns survive two folds', () => {
    const turns = conversation();
    const first = foldTurnsHeuristically(null, turns.slice(0, 11));
    const second = foldTurnsHeuristically(parseSummary(renderSummary(first)), [...turns.slice(11), turn(21, 'user', 'Fine, the cache stays at 2 GB.')]);
    const text = renderSummary(second);
    expect(text).toContain('We decided to use PostgreSQL for the event store.');
    expect(text).toContain('Priya Sharma');
  });

  it('ignores questions, tool output and system prompts', () => {
    const doc = summarizeTurns([
      turn(0, 'system', 'You decided nothing yet. Acme Corp is the customer.'),
      turn(1, 'tool', '{"result": "We decided to use Redis"}'),
      turn(2, 'user', 'Should we go with Redis?'),
    ]);
    expect(doc.decisions).toEqual([]);
    expect(doc.entities).not.toContain('Acme Corp');
  });

  it('returns an empty digest for empty turns', () => {
    expect(summarizeTurns([])).toEqual({ decisions: [], commitments: [], entities: [], notes: [] });
  });
});

describe('summary text', () => {
  const item = fc.string({ minLength: 1, maxLength: 60 }).map((s) => s.replace(/\s+/g, ' ').trim()).filter((s) => /[\p{L}\p{N}]/u.test(s) && !/^(Decisions|Commitments|Entities|Notes):$/.test(s));
  const doc: fc.Arbitrary<SummaryDoc> = fc.record({
    decisions: fc.uniqueArray(item, { maxLength: 5, selector: (s) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim() }),
    commitments: fc.uniqueArray(item, { maxLength: 5, selector: (s) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim() }),
    entities: fc.uniqueArray(item, { maxLength: 5, selector: (s) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim() }),
    notes: fc.uniqueArray(item, { maxLength: 5, selector: (s) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim() }),
  });

  it('reads back what it renders', () => {
    fc.assert(fc.property(doc, (d) => expect(parseSummary(renderSummary(d))).toEqual(d)));
  });

  it('keeps text in another layout as notes', () => {
    expect(parseSummary('free text from elsewhere\nsecond line')).toEqual({ decisions: [], commitments: [], entities: [], notes: ['free text from elsewhere', 'second line'] });
    expect(parseSummary(null)).toEqual({ decisions: [], commitments: [], entities: [], notes: [] });
  });

  it('merges without duplicates, drops the oldest past a limit, and reports only additions', () => {
    const previous: SummaryDoc = { decisions: ['Use PostgreSQL.'], commitments: [], entities: ['Berlin'], notes: [] };
    const next: SummaryDoc = { decisions: ['use postgresql', 'Ship on Monday.'], commitments: [], entities: ['Berlin', 'Helix Labs'], notes: [] };
    const merged = mergeSummaries(previous, next);
    expect(merged.decisions).toEqual(['Use PostgreSQL.', 'Ship on Monday.']);
    expect(summaryAdditions(previous, merged)).toEqual({ decisions: ['Ship on Monday.'], commitments: [], entities: ['Helix Labs'], notes: [] });
    const many = { ...previous, entities: Array.from({ length: SUMMARY_LIMITS.entities + 5 }, (_, i) => `Entity ${i}`) };
    const capped = mergeSummaries({ decisions: [], commitments: [], entities: [], notes: [] }, many);
    expect(capped.entities).toHaveLength(SUMMARY_LIMITS.entities);
    expect(capped.entities.at(-1)).toBe(`Entity ${SUMMARY_LIMITS.entities + 4}`);
  });
});
