import { SKIPPED_BY_FORGET } from '../core/memories/forget.js';
import { remember, startTestStack, waitForStatus, type TestStack } from './support/stack.js';

/**
 * Calls about one memory racing with its extraction workflow: each case writes
 * a memory, waits `delay` ms after the write is acknowledged, then acts on it.
 * Whatever the interleaving, the memory reaches a terminal status that tells
 * the truth, and nothing is learnt from a memory that stays forgotten.
 */
const DELAYS = [0, 5, 20, 50, 200, 1500];
const OPERATIONS = ['forget', 'delete', 'restore-after-forget', 'retry', 'correct'] as const;
type Operation = (typeof OPERATIONS)[number];
const CASES = OPERATIONS.flatMap((operation) => DELAYS.map((delay) => ({ operation, delay })));

const NS = 'races';
const TERMINAL = ['extracted', 'skipped', 'failed'];
const SYLLABLES = ['ka', 'lo', 'mi', 'ru', 'te', 'vo', 'zan'];

/** A person and an employer no other case names, so no fact is shared between cases. */
function sentence(index: number): string {
  const syllable = (n: number) => SYLLABLES[n % SYLLABLES.length];
  const name = syllable(index) + syllable(Math.floor(index / SYLLABLES.length) + 3) + 'ne';
  const person = name[0].toUpperCase() + name.slice(1);
  return `${person} works at ${person}vex Labs.`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('races on one memory: delays × operations against its extraction', () => {
  let stack: TestStack;
  /** A fact established before the races; the `correct` cases confirm it while correcting it. */
  let sharedFact: string;
  const sharedSentence = 'Quillon works at Brakvex Labs.';

  beforeAll(async () => {
    stack = await startTestStack();
    const base = await remember(stack, { namespace: NS, content: sharedSentence });
    expect(base.status).toBe('extracted');
    sharedFact = base.fact_ids[0];
    expect(sharedFact).toBeDefined();
  });
  afterAll(async () => {
    await stack.stop();
  });

  /** Facts the episode supports, with whether each is still readable. */
  async function supportedFacts(episodeId: string) {
    const { rows } = await stack.deps.pool.query<{ id: string; live: boolean }>(
      `SELECT f.id, f.forgotten_at IS NULL AS live FROM fact f JOIN fact_episode fe ON fe.fact_id = f.id
        WHERE fe.episode_id = $1 AND fe.relation IN ('created', 'confirmed', 'refined') ORDER BY f.id`,
      [episodeId],
    );
    return rows;
  }

  async function write(content: string): Promise<string> {
    const res = await stack.request<{ id: string }>('POST', '/v1/memories', { namespace: NS, content });
    expect(res.status).toBe(202);
    return res.body.id;
  }

  async function expectForgottenTruthfully(id: string) {
    const final = await waitForStatus(stack, id, TERMINAL, 30_000);
    const facts = await supportedFacts(id);
    if (final.status === 'skipped') {
      expect(SKIPPED_BY_FORGET).toContain(final.error);
      expect(facts).toEqual([]);
    } else {
      // The forget came after the commit: what was learnt is forgotten with it.
      expect(final.status).toBe('extracted');
      expect(facts.length).toBeGreaterThan(0);
      expect(facts.filter((f) => f.live)).toEqual([]);
    }
  }

  const act: Record<Operation, (id: string, index: number) => Promise<void>> = {
    async forget(id) {
      expect((await stack.request('POST', `/v1/memories/${id}/forget`)).status).toBe(200);
      await expectForgottenTruthfully(id);
    },
    async delete(id) {
      expect((await stack.request('DELETE', `/v1/memories/${id}`)).status).toBe(200);
      await expectForgottenTruthfully(id);
    },
    async 'restore-after-forget'(id) {
      expect((await stack.request('POST', `/v1/memories/${id}/forget`)).status).toBe(200);
      const restored = await stack.request<{ restored: boolean }>('POST', `/v1/memories/${id}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.body.restored).toBe(true);
      const final = await waitForStatus(stack, id, ['extracted'], 30_000);
      expect(final.error).toBeNull();
      const facts = await supportedFacts(id);
      expect(facts.length).toBeGreaterThan(0);
      expect(facts.every((f) => f.live)).toBe(true);
    },
    async retry(id) {
      // Only a failed memory may be retried: while it is pending, extracting or extracted the answer is 409.
      const res = await stack.request<{ error?: { code: string } }>('POST', `/v1/memories/${id}/retry`);
      if (res.status !== 202) {
        expect(res.status).toBe(409);
        expect(res.body.error?.code).toBe('conflict');
      }
      const final = await waitForStatus(stack, id, TERMINAL, 30_000);
      expect(final.status).toBe('extracted');
      expect((await supportedFacts(id)).length).toBeGreaterThan(0);
    },
    async correct(id, index) {
      // The episode confirms the shared fact while an operator corrects that fact: both land.
      const importance = Number((0.1 + index / 100).toFixed(2));
      const res = await stack.request<{ importance: number }>('PATCH', `/v1/facts/${sharedFact}`, { importance, reason: `race ${index}` });
      expect(res.status).toBe(200);
      const final = await waitForStatus(stack, id, TERMINAL, 30_000);
      expect(final.status).toBe('extracted');
      expect(final.fact_ids).toContain(sharedFact);
      const { rows } = await stack.deps.pool.query<{ importance: number; forgotten_at: Date | null }>(
        'SELECT importance, forgotten_at FROM fact WHERE id = $1',
        [sharedFact],
      );
      expect(Number(rows[0].importance)).toBeCloseTo(importance, 5);
      expect(rows[0].forgotten_at).toBeNull();
    },
  };

  it.each(CASES.map((c, index) => ({ ...c, index })))('$operation $delay ms after the write', async ({ operation, delay, index }) => {
    const id = await write(operation === 'correct' ? sharedSentence : sentence(index));
    await sleep(delay);
    await act[operation](id, index);
    // The race leaves nothing half-done: the episode is not pending or extracting.
    const { rows } = await stack.deps.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM episode WHERE id = $1 AND status IN ('pending', 'extracting')`,
      [id],
    );
    expect(rows[0].n).toBe(0);
  });
});
