import fc from 'fast-check';
import { RECIPES } from '../core/retrieval/recipes.js';
import type { ReadScope } from '../core/retrieval/scope.js';
import type { SignalInput } from '../core/retrieval/signals/context.js';
import { keywordBranchesWith, SCORE_SLOTS } from '../core/retrieval/signals/keyword.js';
import type { KeywordPlanOptions } from '../core/retrieval/signals/keywordPlan.js';
import { runSignalStatement } from '../core/retrieval/signals/statement.js';
import { keywordTsQuery } from '../core/retrieval/queryText.js';
import { SqlParams } from '../core/retrieval/sql.js';
import { refreshTermStats } from '../core/retrieval/termStats.js';
import type { RankedList, ResultKind } from '../core/retrieval/types.js';
import { insertEntity, insertEpisode, insertFact, type ReadApi, useReadApi } from './support/graphFixtures.js';
import { explainPrepared } from './support/plans.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'kwprune';
/** Made-up words (no stemming surprises), the first ones far more common than the rest (Zipf). */
const VOCABULARY = Array.from({ length: 60 }, (_, i) => `zq${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`);

/** A seeded word picker with probability ∝ 1 / (rank + 1). */
function zipfWords(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const weights = VOCABULARY.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((a, w) => a + w, 0);
  const word = () => {
    let x = next() * total;
    for (let i = 0; i < weights.length; i++) if ((x -= weights[i]) <= 0) return VOCABULARY[i];
    return VOCABULARY[VOCABULARY.length - 1];
  };
  return (n: number) => Array.from({ length: n }, word).join(' ');
}

const USERS = ['kw-ann', 'kw-bob', 'kw-cy'];

describe('keyword signal: the phased scan returns what scoring every match returns', () => {
  let api: ReadApi;
  const scope: ReadScope = { namespace: NS, now: NOW, includeForgotten: false };

  useReadApi(NOW, async (started) => {
    api = started;
    const db = api.deps.pool;
    const text = zipfWords(7);
    for (let i = 0; i < 400; i++) {
      // Three users' turns and some without a user, so a per-user scan has other users' postings to skip.
      const userId = i % 4 === 3 ? undefined : USERS[i % 3];
      await insertEpisode(db, { namespace: NS, userId, content: `${text(3 + (i % 6))}.`, occurredAt: new Date(Date.UTC(2026, 0, 1 + (i % 150), i % 24)) });
    }
    const subject = await insertEntity(db, { namespace: NS, name: 'Subject' });
    for (let i = 0; i < 250; i++) {
      await insertFact(db, { namespace: NS, subjectId: subject, predicate: 'likes', factText: `${text(2 + (i % 4))}.`, recordedAt: new Date(Date.UTC(2026, 0, 1 + (i % 90))) });
    }
    await db.query('ANALYZE episode');
    await db.query('ANALYZE fact');
    await refreshTermStats(db);
  });

  const keywordInput = (query: string, depth: number, kinds: ResultKind[], userId?: string): SignalInput => ({
    db: api.deps.pool,
    scope: { ...scope, userId },
    recipe: { ...RECIPES.keyword_only, depths: { ...RECIPES.keyword_only.depths, keyword: depth } },
    kinds: new Set(kinds),
    query,
    vector: () => Promise.reject(new Error('the keyword signal embeds nothing')),
    tsquery: keywordTsQuery(query),
    window: null,
  });

  async function keywordLists(query: string, depth: number, options: KeywordPlanOptions, userId?: string): Promise<RankedList[]> {
    const p = new SqlParams();
    const part = await keywordBranchesWith(options)(keywordInput(query, depth, ['episode', 'fact'], userId), p);
    if (!part) return [];
    return (await runSignalStatement(api.deps.pool, p, [part])).get('keyword') ?? [];
  }

  const EVERYTHING: KeywordPlanOptions = { phaseRows: [Number.MAX_SAFE_INTEGER], pairRows: 0 };
  /** A query of one to six distinct words (one no row holds), and how many rows each list keeps. */
  const QUERY_WORDS = fc.uniqueArray(fc.constantFrom(...VOCABULARY, 'zqunknownx'), { minLength: 1, maxLength: 6 });
  const DEPTHS = fc.constantFrom(3, 10, 30);
  /** No pair phase, pairs of rare terms only, every pair. */
  const PAIR_ROWS = fc.constantFrom(0, 15, Number.MAX_SAFE_INTEGER);

  it('for any query, depth, phase bounds and pair phase, the lists equal those of one phase reading every match', async () => {
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(
        QUERY_WORDS,
        DEPTHS,
        // Estimated rows per phase bound: the rarest term alone, then two or three phases of different sizes.
        fc.constantFrom([0], [0, 0], [0, 30], [10, 60], [5, 20, 80]),
        PAIR_ROWS,
        // Pairs estimated by the rarer term, or by both terms' shares together (more pairs, the namespace-wide plan).
        fc.constantFrom('rarer' as const, 'joint' as const),
        async (words, depth, phaseRows, pairRows, pairEstimate) => {
          const query = words.join(' ');
          const pruned = await keywordLists(query, depth, { phaseRows, pairRows, pairEstimate });
          const everything = await keywordLists(query, depth, EVERYTHING);
          expect(pruned).toEqual(everything);
          if (everything.some((list) => list.hits.length)) nonEmpty++;
        },
      ),
      { numRuns: 200, seed: 23 },
    );
    expect(nonEmpty).toBeGreaterThan(160);
  });

  it("narrowed to a user, reading each phase through the user's postings returns what scoring every match of the user returns", async () => {
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(
        QUERY_WORDS,
        DEPTHS,
        fc.constantFrom([0], [10, 60], [5, 20, 80]),
        PAIR_ROWS,
        fc.constantFrom(...USERS),
        async (words, depth, phaseRows, pairRows, userId) => {
          const query = words.join(' ');
          const byUserTerms = await keywordLists(query, depth, { phaseRows, pairRows, userTerms: true }, userId);
          const everything = await keywordLists(query, depth, EVERYTHING, userId);
          expect(byUserTerms).toEqual(everything);
          if (everything.some((list) => list.hits.length)) nonEmpty++;
        },
      ),
      { numRuns: 120, seed: 31 },
    );
    expect(nonEmpty).toBeGreaterThan(90);
  });

  it("narrowed to a user, a phase reads that user's postings of its words, not the words' postings over the table", async () => {
    const p = new SqlParams();
    const part = (await keywordBranchesWith({ phaseRows: [0], pairRows: 0, userTerms: true })(keywordInput(`${VOCABULARY[0]} ${VOCABULARY[40]}`, 10, ['episode'], USERS[1]), p))!;
    // The read path's own kind of plan: a prepared statement's generic plan, on a read-path connection.
    const rows = await explainPrepared<{ 'QUERY PLAN': string }>(api.deps.readPool, `WITH ${part.ctes.join(', ')} ${part.branches.join(' UNION ALL ')}`, p.values, 'COSTS OFF');
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Bitmap Index Scan on episode_user_terms_idx/);
    expect(plan).not.toMatch(/episode_tsv_idx|episode_scope_idx/);
  });

  it('scores rows alike whether the query has term slots to spare or is summed over its unnested terms', async () => {
    // Words no row holds change no score and add no candidate: padded past SCORE_SLOTS, the same query takes
    // the unnest form, so both forms must rank the same rows with the same scores. The query's own words are rare
    // ones (under 5 % of rows), so the padding (rarer still) does not take over generating the candidates.
    const padding = Array.from({ length: SCORE_SLOTS }, (_, i) => `zqpad${String.fromCharCode(97 + i)}x`);
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...VOCABULARY.slice(30)), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(3, 10, 30),
        async (words, depth) => {
          const slotted = await keywordLists(words.join(' '), depth, EVERYTHING);
          const unnested = await keywordLists([...words, ...padding].join(' '), depth, EVERYTHING);
          expect(unnested).toEqual(slotted);
          if (slotted.some((list) => list.hits.length)) nonEmpty++;
        },
      ),
      { numRuns: 60, seed: 29 },
    );
    expect(nonEmpty).toBeGreaterThan(40);
  });

  it('skips the second phase when the rarest terms fill the list, and runs it when they cannot', async () => {
    const plan = async (query: string, depth: number) => {
      const p = new SqlParams();
      const part = (await keywordBranchesWith({ phaseRows: [0], pairRows: 0 })(keywordInput(query, depth, ['episode']), p))!;
      const { rows } = await api.deps.pool.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, COSTS OFF) WITH ${part.ctes.join(', ')} ${part.branches.join(' UNION ALL ')}`,
        p.values,
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    // Two words that both generate candidates (in under 5 % of the turns), one rarer: rows with the rarer one
    // outscore any row without it, and one such row fills a list of depth 1.
    const [common, rare] = [VOCABULARY[30], VOCABULARY[55]];
    const skipped = await plan(`${common} ${rare}`, 1);
    expect(skipped).toMatch(/One-Time Filter/);
    expect(skipped).toMatch(/Bitmap Heap Scan on episode e \(never executed\)/);
    // Asking for more rows than the rare word has: the common word's rows are read too.
    const ran = await plan(`${common} ${rare}`, 200);
    expect(ran).toMatch(/Bitmap Heap Scan on episode e \(actual time=[^\n]*rows=[1-9]/);
    expect(ran).not.toMatch(/Bitmap Heap Scan on episode e \(never executed\)/);
  });
});
