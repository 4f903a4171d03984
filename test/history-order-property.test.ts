import fc from 'fast-check';
import { startTestStack, waitForStatus, type TestStack } from './support/stack.js';

/**
 * Issue 24, the property: random histories of one single-valued predicate
 * ("Pavel Novak works at X"), fed as episodes in random orders — some
 * statements several to an episode, some episodes written concurrently — end
 * in the same chain, the chain sorted by world time, and `as_of` answers the
 * value valid then. Real API, Temporal workflow and Postgres (heuristic provider).
 */

const VALUES = ['Skoda', 'Tatra', 'Volvo', 'Saab'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY = 86_400_000;
const FIRST_DAY = Date.parse('2025-01-01T00:00:00Z');

interface Statement {
  value: string;
  /** World time the statement gives: a "since" date (midnight UTC), or its episode's occurred_at (noon UTC). */
  validFrom: number;
  /** "since <date>" in the text, or a plain present-tense sentence dated by occurred_at. */
  since: boolean;
}

interface Episode {
  statements: Statement[];
  occurredAt: string;
  content: string;
}

type Link = [value: string, validFrom: string, invalidAt: string | null, invalidatedBy: string | null];

const iso = (ms: number) => new Date(ms).toISOString();

function sentence(s: Statement): string {
  if (!s.since) return `Pavel Novak works at ${s.value}.`;
  const d = new Date(s.validFrom);
  return `Pavel Novak works at ${s.value} since ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}.`;
}

/** The chain by world time: consecutive equal values are one interval (a confirmation), each closed by the next value. */
function expectedChain(statements: Statement[]): Link[] {
  const sorted = [...statements].sort((a, b) => a.validFrom - b.validFrom);
  const runs = sorted.filter((s, i) => i === 0 || sorted[i - 1].value !== s.value);
  return runs.map((s, i) => [s.value, iso(s.validFrom), runs[i + 1] ? iso(runs[i + 1].validFrom) : null, runs[i + 1]?.value ?? null]);
}

function valueAt(chain: Link[], instant: number): string[] {
  return chain.filter(([, from, to]) => Date.parse(from) <= instant && (to === null || Date.parse(to) > instant)).map(([value]) => value);
}

/**
 * A history: 2–6 statements with distinct world times, values drawn from a
 * small set so that some return (A, B, A). Dates are days of 2025–2026; a
 * "since" date is midnight, an occurred_at is noon, so they never collide.
 */
const historyArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 700 }), { minLength: 2, maxLength: 6 })
  .chain((days) =>
    fc.tuple(
      fc.constant(days),
      fc.array(fc.constantFrom(...VALUES), { minLength: days.length, maxLength: days.length }),
      fc.array(fc.boolean(), { minLength: days.length, maxLength: days.length }),
    ),
  )
  .map(([days, values, since]) =>
    days.map((day, i): Statement => ({ value: values[i], since: since[i], validFrom: FIRST_DAY + day * DAY + (since[i] ? 0 : DAY / 2) })),
  );

/** One arrival: the statements in a random order, grouped into episodes, the episodes into concurrent batches. */
const arrivalArb = (n: number) =>
  fc.record({
    order: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
    joinNext: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    concurrentWithNext: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
  });

type Arrival = { order: number[]; joinNext: boolean[]; concurrentWithNext: boolean[] };

/**
 * Turns an arrival into batches of episodes. Statements join one episode only
 * when all are "since" statements (an episode has one occurred_at) with
 * distinct values (an episode states each triple once).
 */
function batchesOf(statements: Statement[], arrival: Arrival): Episode[][] {
  const permuted = statements.map((s, i) => ({ s, key: arrival.order[i] })).sort((a, b) => a.key - b.key).map((x) => x.s);
  const episodes: Statement[][] = [];
  permuted.forEach((s, i) => {
    const last = episodes[episodes.length - 1];
    const joins = i > 0 && arrival.joinNext[i] && s.since && last.every((x) => x.since && x.value !== s.value);
    if (joins) last.push(s);
    else episodes.push([s]);
  });
  const batches: Episode[][] = [];
  episodes.forEach((statementsOf, i) => {
    const episode: Episode = {
      statements: statementsOf,
      occurredAt: statementsOf[0].since ? '2027-01-01T12:00:00Z' : iso(statementsOf[0].validFrom),
      content: statementsOf.map(sentence).join(' '),
    };
    if (i > 0 && arrival.concurrentWithNext[i]) batches[batches.length - 1].push(episode);
    else batches.push([episode]);
  });
  return batches;
}

describe('history order property (issue 24)', () => {
  let stack: TestStack;
  let run = 0;
  const tally = { histories: 0, permutations: 0, episodes: 0, concurrentBatches: 0, sharedEpisodes: 0, asOfChecks: 0 };

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    console.log(
      `history-order property: ${tally.histories} histories, ${tally.permutations} arrival orders, ${tally.episodes} episodes ` +
        `(${tally.sharedEpisodes} with several statements, ${tally.concurrentBatches} concurrent batches), ${tally.asOfChecks} as_of checks`,
    );
    await stack.stop();
  });

  async function feed(namespace: string, batches: Episode[][]): Promise<void> {
    for (const batch of batches) {
      const ids = await Promise.all(
        batch.map(async (e) => {
          const res = await stack.request<{ id: string }>('POST', '/v1/memories', { namespace, content: e.content, occurred_at: e.occurredAt });
          expect(res.status).toBe(202);
          return res.body.id;
        }),
      );
      for (const id of ids) expect((await waitForStatus(stack, id)).status).toBe('extracted');
    }
  }

  async function storedChain(namespace: string): Promise<Link[]> {
    const { rows } = await stack.deps.pool.query<{ id: string; value: string; valid_from: Date; invalid_at: Date | null; invalidated_by: string | null }>(
      `SELECT f.id, o.name AS value, f.valid_from, f.invalid_at, f.invalidated_by
         FROM fact f JOIN entity o ON o.id = f.object_id
        WHERE f.namespace = $1 AND f.predicate = 'works_at' AND f.forgotten_at IS NULL AND NOT (f.expired_at IS NOT NULL AND f.invalid_at IS NULL)
        ORDER BY f.valid_from`,
      [namespace],
    );
    const valueOf = new Map(rows.map((r) => [r.id, r.value]));
    return rows.map((r) => [r.value, r.valid_from.toISOString(), r.invalid_at?.toISOString() ?? null, r.invalidated_by ? (valueOf.get(r.invalidated_by) ?? '?') : null]);
  }

  async function asOf(namespace: string, instant: number): Promise<string[]> {
    const qs = new URLSearchParams({ namespace, subject: 'Pavel Novak', predicate: 'works_at', as_of: iso(instant) });
    const res = await stack.request<{ facts: Array<{ object: { name: string } | null }> }>('GET', `/v1/facts?${qs}`);
    expect(res.status).toBe(200);
    return res.body.facts.map((f) => f.object?.name ?? '?');
  }

  it('every arrival order of a history yields the chain sorted by world time', async () => {
    await fc.assert(
      fc.asyncProperty(
        historyArb.chain((h) => fc.tuple(fc.constant(h), fc.array(arrivalArb(h.length), { minLength: 3, maxLength: 3 }), fc.array(fc.integer({ min: 0, max: 800 }), { minLength: 4, maxLength: 4 }))),
        async ([history, arrivals, probeDays]) => {
          const expected = expectedChain(history);
          const id = ++run;
          tally.histories++;
          // The arrival orders of one history run side by side, each in its own namespace.
          const chains = await Promise.all(
            arrivals.map(async (arrival, k) => {
              const namespace = `history-property-${id}-${k}`;
              const batches = batchesOf(history, arrival);
              tally.permutations++;
              tally.episodes += batches.flat().length;
              tally.sharedEpisodes += batches.flat().filter((e) => e.statements.length > 1).length;
              tally.concurrentBatches += batches.filter((b) => b.length > 1).length;
              await feed(namespace, batches);
              const stored = await storedChain(namespace);
              expect({ namespace, stored }).toEqual({ namespace, stored: expected });
              // as_of at random instants and just around every boundary answers the value valid then.
              const instants = [...probeDays.map((d) => FIRST_DAY + d * DAY + 3_600_000), ...history.flatMap((s) => [s.validFrom - 1, s.validFrom])];
              for (const t of instants) {
                expect(await asOf(namespace, t)).toEqual(valueAt(expected, t));
                tally.asOfChecks++;
              }
              return stored;
            }),
          );
          for (const stored of chains) expect(stored).toEqual(expected);
        },
      ),
      { numRuns: Number(process.env.HISTORY_ORDER_RUNS ?? 12), endOnFailure: true, ...(process.env.HISTORY_ORDER_SEED ? { seed: Number(process.env.HISTORY_ORDER_SEED) } : {}) },
    );
  }, 120_000);
});
