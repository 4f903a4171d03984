import { orderByRelevance, queryFamilies } from '../core/retrieval/factRelevance.js';
import type { CompactFactView } from '../core/retrieval/facts.js';
import { saidAt } from '../core/retrieval/tense.js';
import { wordCoverage } from '../core/retrieval/wordCoverage.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';

interface ContextBody {
  text: string;
  facts: Array<{ id: string; fact_text: string; predicate: string }>;
  memories: Array<{ id: string; type: string; text: string; status: string; superseded_by: { fact_id: string | null; fact_text: string | null; at: string } | null }>;
}

const NS = 'trust';
const USER = 'u-stefan';
/** A memory with two statements, one of which later stops holding: told in order, and the later one first. */
const SAM = 'u-sam';
const SAM_LATE = 'u-sam-late';

describe('a context block an agent can trust (the Stefan story, through the real pipeline)', () => {
  let stack: TestStack;
  let before: string;
  let after: string;
  const porto: Record<string, string> = {};
  const moved: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startTestStack();
    before = (await remember(stack, { namespace: NS, user_id: USER, content: 'Stefan works at Premex.', occurred_at: '2026-01-10T09:00:00Z' })).id;
    after = (await remember(stack, { namespace: NS, user_id: USER, content: 'Stefan left Premex and now works at Acme.', occurred_at: '2026-03-01T09:00:00Z' })).id;
    const lives = (user: string) => remember(stack, { namespace: NS, user_id: user, speaker: 'Sam', content: 'My sister Lena lives in Porto.', occurred_at: '2026-03-02T10:00:00Z' });
    const move = (user: string) => remember(stack, { namespace: NS, user_id: user, speaker: 'Sam', content: 'Lena moved from Porto to Madrid in August.', occurred_at: '2026-09-01T10:00:00Z' });
    porto[SAM] = (await lives(SAM)).id;
    moved[SAM] = (await move(SAM)).id;
    moved[SAM_LATE] = (await move(SAM_LATE)).id;
    porto[SAM_LATE] = (await lives(SAM_LATE)).id;
  });
  afterAll(async () => {
    await stack.stop();
  });

  const context = async (body: Record<string, unknown>) => {
    const res = await stack.request<ContextBody>('POST', '/v1/context', { namespace: NS, ...body });
    expect(res.status).toBe(200);
    return res.body;
  };

  for (const scoped of [true, false]) {
    describe(scoped ? 'for the user' : 'by the entity the query names', () => {
      const ask = () => context({ ...(scoped ? { user_id: USER } : {}), query: 'where does Stefan work?' });

      it('never presents the superseded statement as current: its line and its JSON carry the status', async () => {
        const body = await ask();
        const old = body.memories.find((m) => m.id === before);
        expect(old).toMatchObject({ status: 'superseded', superseded_by: { at: '2026-03-01T09:00:00.000Z' } });
        expect(old?.superseded_by?.fact_text).toMatch(/Stefan works at Acme\.|Stefan left Premex\./);
        const line = body.text.split('\n').find((l) => l.includes('Stefan works at Premex.'));
        expect(line).toMatch(/^- \[2026-01-10\] Stefan works at Premex\. \(superseded 2026-03-01: now Stefan (works at Acme|left Premex)\.\)$/);
        // Nothing in the facts says Premex is current.
        expect(body.facts.some((f) => f.fact_text === 'Stefan works at Premex.')).toBe(false);
      });

      it("leads with Stefan's current employer; the transition follows the state it explains", async () => {
        const body = await ask();
        expect(body.facts[0]).toMatchObject({ predicate: 'works_at', fact_text: 'Stefan works at Acme.' });
        const lines = body.text.split('\n');
        const acme = lines.indexOf(lines.find((l) => l.startsWith('- Stefan works at Acme.')) ?? '');
        const left = lines.indexOf(lines.find((l) => l.startsWith('- Stefan left Premex.')) ?? '');
        expect(acme).toBeGreaterThan(0);
        expect(left).toBeGreaterThan(acme);
        expect(body.text).toMatch(/^Known facts \(current, most relevant first\):\n- Stefan works at Acme\./);
      });

      it('does not show a memory that only repeats listed facts', async () => {
        const body = await ask();
        expect(body.memories.map((m) => m.id)).not.toContain(after);
        expect(body.text.match(/Stefan left Premex/g)).toHaveLength(1);
        expect(body.memories.filter((m) => m.status === 'current').every((m) => m.superseded_by === null)).toBe(true);
      });
    });
  }

  it('without a query the recent memories carry the same status', async () => {
    const body = await context({ user_id: USER });
    expect(body.memories.find((m) => m.id === before)?.status).toBe('superseded');
    expect(body.text).toContain('Stefan works at Premex. (superseded 2026-03-01');
  });

  for (const user of [SAM, SAM_LATE]) {
    describe(`a memory only part of which stopped holding (${user === SAM ? 'told in order' : 'the move told first'})`, () => {
      const ask = (extra: Record<string, unknown> = {}) => context({ user_id: user, query: 'where does Lena live?', ...extra });

      it('says which part ended and what holds now, on its line and in its JSON', async () => {
        const body = await ask();
        const old = body.memories.find((m) => m.id === porto[user]);
        // Lena is still his sister; her living in Porto ended in August.
        expect(old).toMatchObject({ status: 'partly_superseded', superseded_by: { at: '2026-08-01T00:00:00.000Z' } });
        expect(old?.superseded_by?.fact_text).toMatch(/^Lena (lives in|moved to) Madrid/);
        const line = body.text.split('\n').find((l) => l.includes('My sister Lena lives in Porto.'));
        expect(line).toMatch(/^- \[2026-03-02\] Sam: My sister Lena lives in Porto\. \(partly superseded 2026-08-01: now Lena (lives in|moved to) Madrid[^)]*\)$/);
      });

      it("leads with Lena's home now: she is named, and in Sam's scope", async () => {
        const body = await ask();
        expect(body.facts[0]?.fact_text).toMatch(/^Lena lives in Madrid/);
      });

      // Asked about Porto rather than Lena, so that her facts are not listed and the memories that only repeat them stay in the block.
      it('does not mark the memory that ended the statement, though it may also confirm what held until then', async () => {
        const body = await ask({ query: 'who lives in Porto?' });
        const line = body.text.split('\n').find((l) => l.includes('Lena moved from Porto to Madrid in August.'));
        expect(line).toBe('- [2026-09-01] Sam: Lena moved from Porto to Madrid in August.');
        expect(body.memories.find((m) => m.id === moved[user])).toMatchObject({ status: 'current', superseded_by: null });
      });

      it('is current as of a time before the move, and the rest of the block is unmarked', async () => {
        const body = await ask({ query: 'who lives in Porto?', as_of: '2026-05-01T00:00:00Z' });
        expect(body.memories.find((m) => m.id === porto[user])).toMatchObject({ status: 'current', superseded_by: null });
        expect(body.text).not.toContain('superseded');
      });
    });
  }

  it('a statement about the past that still holds is not marked: its end came with it', async () => {
    const user = 'u-past';
    const bounded = await remember(stack, { namespace: NS, user_id: user, speaker: 'Sam', content: 'I worked at Initech until 2021.', occurred_at: '2026-05-01T10:00:00Z' });
    const past = await remember(stack, { namespace: NS, user_id: user, speaker: 'Sam', content: 'I lived in Porto.', occurred_at: '2026-05-02T10:00:00Z' });
    const body = await context({ user_id: user });
    expect(body.memories.find((m) => m.id === bounded.id)).toMatchObject({ status: 'current', superseded_by: null });
    expect(body.memories.find((m) => m.id === past.id)).toMatchObject({ status: 'current', superseded_by: null });
    expect(body.text).not.toContain('superseded');
  });

  it('a past state said with both ends is placed in time: it holds as of a day inside the range only', async () => {
    const user = 'u-range';
    await remember(stack, { namespace: NS, user_id: user, speaker: 'Sam', content: 'I worked at Initech from 2019 to 2021.', occurred_at: '2026-05-01T10:00:00Z' });
    type Facts = { facts: Array<{ fact_text: string; valid_from: string | null; invalid_at: string | null }> };
    const facts = async (query: string) => {
      const res = await stack.request<Facts>('GET', `/v1/facts?namespace=${NS}&user_id=${user}&${query}`);
      expect(res.status).toBe(200);
      return res.body.facts.filter((f) => f.fact_text.includes('Initech'));
    };
    expect(await facts('include_invalidated=true')).toEqual([
      expect.objectContaining({ fact_text: 'Sam worked at Initech from 2019 to 2021.', valid_from: '2019-01-01T00:00:00.000Z', invalid_at: '2022-01-01T00:00:00.000Z' }),
    ]);
    expect(await facts('as_of=2020-06-01T00:00:00Z')).toHaveLength(1);
    expect(await facts('as_of=2018-06-01T00:00:00Z')).toEqual([]);
    expect(await facts('as_of=2022-06-01T00:00:00Z')).toEqual([]);
  });

  it('old memories read at today: a start told in the future that has come is said as past, a trip that faded is not listed as current', async () => {
    const user = 'u-import';
    await remember(stack, { namespace: NS, user_id: user, speaker: 'Ana', content: "I'll start at Globex on March 3, 2025. I'm flying to Oslo next Friday.", occurred_at: '2025-02-01T10:00:00Z' });
    const body = await context({ user_id: user, query: 'where does Ana work?' });
    const texts = body.facts.map((f) => f.fact_text);
    expect(texts).toContain('Ana started at Globex on March 3, 2025.');
    expect(body.text).toContain('- Ana started at Globex on March 3, 2025. (');
    expect(body.text).not.toContain('will start');
    // 21-day half-life since February 2025: far below DECAY_FLOOR, though the nightly decay has not marked it stale.
    expect(texts.some((t) => t.includes('Oslo'))).toBe(false);
    // Nor among the memories as a fact (the episode that told it may be shown, under its date).
    for (const query of ['where does Ana work?', 'is Ana traveling to Oslo?']) {
      const memories = (await context({ user_id: user, query })).memories;
      expect(memories.filter((m) => m.type === 'fact' && m.text.includes('Oslo'))).toEqual([]);
    }
    // The facts endpoint keeps them as told, with their history.
    const res = await stack.request<{ facts: Array<{ fact_text: string }> }>('GET', `/v1/facts?namespace=${NS}&user_id=${user}`);
    expect(res.body.facts.map((f) => f.fact_text)).toEqual(expect.arrayContaining(['Ana will start at Globex on March 3, 2025.', 'Ana is traveling to Oslo as of 7 February 2025.']));
  });

  it("a fact found beside the memory that told it, which already says it, is not listed twice", async () => {
    const user = 'u-sister';
    const told = (await remember(stack, { namespace: NS, user_id: user, speaker: 'Sam', content: 'My sister Ana lives in Oslo.', occurred_at: '2026-10-10T10:00:00Z' })).id;
    await remember(stack, { namespace: NS, user_id: user, speaker: 'Sam', content: 'I live in Berlin.', occurred_at: '2026-10-11T10:00:00Z' });
    const body = await context({ user_id: user, query: 'where does Sam live?' });
    expect(body.memories.find((m) => m.id === told)).toMatchObject({ type: 'episode', status: 'current' });
    expect(body.memories.filter((m) => m.type === 'fact' && m.text === 'Ana lives in Oslo.')).toEqual([]);
    expect(body.text.match(/Ana lives in Oslo/g)).toHaveLength(1);
    // Asked about her, the fact is listed among the facts and the memory that only repeats it is left out, as before.
    const asked = await context({ user_id: user, query: 'where does Ana live?' });
    expect(asked.facts.map((f) => f.fact_text)).toContain('Ana lives in Oslo.');
  });

  it('as of a time before the change, the old statement is current again', async () => {
    const body = await context({ user_id: USER, query: 'where does Stefan work?', as_of: '2026-02-01T00:00:00Z' });
    expect(body.facts.map((f) => f.fact_text)).toEqual(['Stefan works at Premex.']);
    // It is listed as a fact, so its memory (which only repeats it) is not shown again.
    expect(body.memories.map((m) => m.id)).not.toContain(before);
    expect(body.text).not.toContain('superseded');
  });
});

describe('facts said at the read instant (pure)', () => {
  const at = new Date('2026-11-29T12:00:00Z');
  const fact = (fact_text: string, valid_from: string | null) => ({ fact_text, valid_from });

  it('a future start that has come is said as past; one still ahead, or with no start, as told', async () => {
    expect(
      await saidAt(
        [
          fact('Ana will start at Globex on 3 March 2025.', '2025-03-03T00:00:00.000Z'),
          fact('Sam will move to Seattle in the week of 27 November 2026.', '2026-11-27T00:00:00.000Z'),
          fact('Lena will leave Initech on 1 January 2027.', '2027-01-01T00:00:00.000Z'),
          fact('Sam will be in Tokyo on 2 November 2026.', '2026-11-02T00:00:00.000Z'),
          fact('Ana and Bo will be in Oslo on 1 November 2026.', '2026-11-01T00:00:00.000Z'),
          fact("Sam's parents will be in Lisbon on 1 October 2026.", '2026-10-01T00:00:00.000Z'),
          fact('Sam will visit Rome.', null),
          fact('Sam works at Acme.', '2020-01-01T00:00:00.000Z'),
        ],
        at,
      ),
    ).toEqual([
      fact('Ana started at Globex on 3 March 2025.', '2025-03-03T00:00:00.000Z'),
      fact('Sam moved to Seattle in the week of 27 November 2026.', '2026-11-27T00:00:00.000Z'),
      fact('Lena will leave Initech on 1 January 2027.', '2027-01-01T00:00:00.000Z'),
      fact('Sam was in Tokyo on 2 November 2026.', '2026-11-02T00:00:00.000Z'),
      fact('Ana and Bo were in Oslo on 1 November 2026.', '2026-11-01T00:00:00.000Z'),
      fact("Sam's parents were in Lisbon on 1 October 2026.", '2026-10-01T00:00:00.000Z'),
      fact('Sam will visit Rome.', null),
      fact('Sam works at Acme.', '2020-01-01T00:00:00.000Z'),
    ]);
  });

  it('"will" the noun and "Will" the name are left as they are', async () => {
    const told = [fact('Sam signed a will leaving the house to Ana.', '2025-01-01T00:00:00.000Z'), fact('Sam met Will at Acme.', '2025-01-01T00:00:00.000Z')];
    expect(await saidAt(told, at)).toEqual(told);
  });
});

describe('fact relevance (pure)', () => {
  const fact = (id: string, predicate: string, family: string, text: string): CompactFactView => ({
    id, subject: { id: 's', name: 'Stefan', type: 'person' }, predicate, family, object: null, value: null, fact_text: text,
    effective_confidence: 0.5, decay_class: 'slow_decay', freshness: 'confirmed today', last_confirmed_at: '2026-01-01T00:00:00Z', valid_from: null, episode_ids: [],
  });

  it('maps query words to the families they ask about', () => {
    expect([...queryFamilies('Where does Stefan work?')]).toEqual(['work']);
    expect([...queryFamilies('where does she live')]).toEqual(['places']);
    expect([...queryFamilies('which plan is Giulia on?')]).toEqual(['ownership']);
    expect([...queryFamilies('what food should Sam avoid?')].sort()).toEqual(['health', 'preferences']);
    expect([...queryFamilies('does Sam have pets?')]).toEqual(['ownership']);
    expect([...queryFamilies('when was his last trip?')]).toEqual(['places']);
    expect(queryFamilies('hello there').size).toBe(0);
  });

  it('orders on-topic states, then their transitions, then the rest (stable otherwise)', () => {
    const likes = fact('1', 'likes', 'preferences', 'Stefan likes jazz.');
    const left = fact('2', 'left', 'events', 'Stefan left Premex.');
    const works = fact('3', 'works_at', 'work', 'Stefan works at Acme.');
    const lives = fact('4', 'lives_in', 'places', 'Stefan lives in Graz.');
    expect(orderByRelevance([likes, left, works, lives], 'where does Stefan work?').map((f) => f.id)).toEqual(['3', '2', '1', '4']);
    expect(orderByRelevance([likes, left, works, lives], 'does Stefan like jazz').map((f) => f.id)).toEqual(['1', '2', '3', '4']);
  });

  it("puts the facts of whom the query names before others' on-topic ones", () => {
    const about = (id: string, name: string, predicate: string, family: string, text: string): CompactFactView => ({ ...fact(id, predicate, family, text), subject: { id: name, name, type: 'person' } });
    const trip = about('1', 'Sam', 'travels_to', 'places', 'Sam is traveling to Tokyo.');
    const moved = about('2', 'Lena', 'moved_to', 'places', 'Lena moved to Madrid.');
    const home = about('3', 'Lena', 'lives_in', 'places', 'Lena lives in Madrid.');
    const job = about('4', 'Sam', 'works_at', 'work', 'Sam works at Globex.');
    expect(orderByRelevance([trip, moved, job, home], 'where does Lena live?').map((f) => f.id)).toEqual(['3', '2', '1', '4']);
    // Named as a word, not inside one: "Sam" is not in "Samuel's".
    expect(orderByRelevance([trip, job], "where does Samuel's sister live?").map((f) => f.id)).toEqual(['1', '4']);
  });

  it('word coverage tells a memory that only repeats facts from one that adds something', () => {
    expect(wordCoverage('Stefan left Premex and now works at Acme.', ['Stefan left Premex.', 'Stefan works at Acme.'])).toBe(1);
    expect(wordCoverage('Giulia upgraded to the Advanced plan and asked us to stop calling her.', ['Giulia has the Advanced plan.'])).toBeLessThan(0.5);
  });
});
