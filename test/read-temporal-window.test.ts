import { toVectorSql } from '../core/db/pool.js';
import { keywordTsQuery } from '../core/retrieval/queryText.js';
import { resolveRecipe } from '../core/retrieval/recipes.js';
import type { SignalInput } from '../core/retrieval/signals/context.js';
import { runSignalStatement, type SignalBranchBuilder } from '../core/retrieval/signals/statement.js';
import { temporalBranchesWith } from '../core/retrieval/signals/temporal.js';
import { SqlParams, withReadClient } from '../core/retrieval/sql.js';
import { embedder, insertEpisode, insertEntity, insertFact, type ReadApi, useReadApi } from './support/graphFixtures.js';
import { nodesOf, type PlanNode, preparedPlan } from './support/plans.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'timeline';
const QUERY = 'what did we cook for dinner in 2025';
const YEAR_2025 = { start: new Date('2025-01-01T00:00:00Z'), end: new Date('2026-01-01T00:00:00Z'), text: 'in 2025' };
const MARCH_2025 = { start: new Date('2025-03-01T00:00:00Z'), end: new Date('2025-04-01T00:00:00Z'), text: 'in March 2025' };
const DISHES = ['risotto', 'lasagna', 'curry', 'ramen', 'tacos', 'paella', 'goulash', 'pho'];
const CHORES = ['printer toner', 'calendar invites', 'ticket triage', 'expense reports', 'badge renewals'];

/** How many times the scans of `relation` under one branch ran. */
const loopsOn = (branch: PlanNode, relation: string) =>
  nodesOf(branch)
    .filter((n) => n['Relation Name'] === relation)
    .reduce((sum, n) => sum + (n['Actual Loops'] ?? 0), 0);

describe('temporal signal over wide windows', () => {
  let api: ReadApi;

  useReadApi(NOW, async (started) => {
    api = started;
    const pool = api.deps.pool;
    // The bound the tests set is 20 rows. 48 episodes through 2025, two a week: dinners and office chores.
    for (let i = 0; i < 48; i++) {
      const day = new Date(Date.UTC(2025, 0, 3 + i * 7));
      const content =
        i % 2 === 0
          ? `We cooked ${DISHES[i % DISHES.length]} for dinner with friends, evening ${i}.`
          : `Office note ${i}: sorted out ${CHORES[i % CHORES.length]} before the weekly sync.`;
      await insertEpisode(pool, { namespace: NS, content, occurredAt: day, userId: 'u1' });
    }
    const ana = await insertEntity(pool, { namespace: NS, name: 'Ana', scopeUser: 'u1' });
    // 30 facts starting through 2025.
    for (let i = 0; i < 30; i++) {
      await insertFact(pool, {
        namespace: NS, scopeUser: 'u1', subjectId: ana, predicate: 'likes', family: 'preferences',
        factText: i % 2 ? `Ana likes cooking ${DISHES[i % DISHES.length]} for dinner.` : `Ana handles the ${CHORES[i % CHORES.length]}.`,
        validFrom: new Date(Date.UTC(2025, 0, 5 + i * 11)).toISOString(),
      });
    }
  });

  /** The context recipe's way: no query vector, so rows are on topic by the query's words (a GIN index finds them). */
  const WORDS: Partial<SignalInput> = {
    recipe: { ...resolveRecipe('context'), depths: { ...resolveRecipe('context').depths, temporal: 10 } },
    tsquery: keywordTsQuery(QUERY),
  };

  function input(window: typeof YEAR_2025, overrides: Partial<SignalInput> = {}): SignalInput {
    return {
      db: api.deps.readPool,
      scope: { namespace: NS, now: NOW, includeForgotten: false },
      recipe: { ...resolveRecipe('default'), depths: { ...resolveRecipe('default').depths, temporal: 10 } },
      kinds: new Set(['episode', 'fact'] as const),
      query: QUERY,
      vector: async () => toVectorSql(embedder.embedOne(QUERY)),
      tsquery: null,
      window,
      ...overrides,
    };
  }

  async function rank(builder: SignalBranchBuilder, window: typeof YEAR_2025, overrides: Partial<SignalInput> = {}) {
    const p = new SqlParams();
    const part = (await builder(input(window, overrides), p))!;
    const lists = await withReadClient(api.deps.readPool, (db) => runSignalStatement(db, p, [part]));
    const [episodes, facts] = lists.get('temporal')!;
    return { episodes: episodes.hits, facts: facts.hits };
  }

  /** Which of each kind's two branches (scored row by row, or from the index) read the table. */
  async function branchesRun(builder: SignalBranchBuilder, window: typeof YEAR_2025, overrides: Partial<SignalInput> = {}) {
    const p = new SqlParams();
    const part = (await builder(input(window, overrides), p))!;
    const sql = `WITH ${part.ctes.join(', ')} ${part.branches.join(' UNION ALL ')}`;
    const { rows } = await api.deps.readPool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, p.values);
    const plan = nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    const append = plan.find((n) => n['Node Type'] === 'Append')!;
    // The Append's members are the branches in order (its other children are the CTEs' init plans).
    const [episodeExact, episodeNearest, factExact, factNearest] = append.Plans!.filter((n) => n['Parent Relationship'] === 'Member');
    // Scored by the query's words, the exact fact branch reads the window's rows holding one in a CTE of its own.
    const factsMatched = plan.find((n) => n['Subplan Name'] === 'CTE temporal_fact_window_matched');
    return {
      episodeExact: loopsOn(episodeExact, 'episode') > 0,
      episodeNearest: loopsOn(episodeNearest, 'episode') > 0,
      factExact: loopsOn(factExact, 'fact') + (factsMatched ? loopsOn(factsMatched, 'fact') : 0) > 0,
      factNearest: loopsOn(factNearest, 'fact') > 0,
    };
  }

  it('a window holding more rows than the exact-scan bound takes its rows nearest the query, and only that branch runs', async () => {
    await expect(branchesRun(temporalBranchesWith(20), YEAR_2025)).resolves.toEqual({ episodeExact: false, episodeNearest: true, factExact: false, factNearest: true });
    await expect(branchesRun(temporalBranchesWith(5_000), YEAR_2025)).resolves.toEqual({ episodeExact: true, episodeNearest: false, factExact: true, factNearest: false });
  });

  it('the nearest rows, ranked by the full score, are the rows the exact scan ranks first', async () => {
    const exact = await rank(temporalBranchesWith(5_000), YEAR_2025);
    const nearest = await rank(temporalBranchesWith(20), YEAR_2025);
    expect(exact.episodes).toHaveLength(10);
    expect(nearest.episodes.map((h) => h.id)).toEqual(exact.episodes.map((h) => h.id));
    expect(nearest.facts.map((h) => h.id)).toEqual(exact.facts.map((h) => h.id));
    // On topic: every dinner outranks every office note (the exact scan's own order, now from the index too).
    const dinners = await api.deps.pool.query<{ id: string }>(`SELECT id FROM episode WHERE namespace = $1 AND content LIKE 'We cooked%'`, [NS]);
    const dinnerIds = new Set(dinners.rows.map((r) => r.id));
    expect(nearest.episodes.every((h) => dinnerIds.has(h.id))).toBe(true);
  });

  it('without the query vector, a wide window takes the rows holding a query word from the text index, ranked as the exact scan ranks them', async () => {
    // Namespace-wide "… in 2025" through the context recipe scored every row of the window (205 ms at 100k episodes).
    await expect(branchesRun(temporalBranchesWith(20), YEAR_2025, WORDS)).resolves.toEqual({ episodeExact: false, episodeNearest: true, factExact: false, factNearest: true });
    await expect(branchesRun(temporalBranchesWith(5_000), YEAR_2025, WORDS)).resolves.toEqual({ episodeExact: true, episodeNearest: false, factExact: true, factNearest: false });
    const exact = await rank(temporalBranchesWith(5_000), YEAR_2025, WORDS);
    const indexed = await rank(temporalBranchesWith(20), YEAR_2025, WORDS);
    expect(exact.episodes).toHaveLength(10);
    expect(indexed.episodes).toEqual(exact.episodes);
    expect(indexed.facts).toEqual(exact.facts);
    const dinners = await api.deps.pool.query<{ id: string }>(`SELECT id FROM episode WHERE namespace = $1 AND content LIKE 'We cooked%'`, [NS]);
    const dinnerIds = new Set(dinners.rows.map((r) => r.id));
    expect(indexed.episodes.every((h) => dinnerIds.has(h.id))).toBe(true);
  });

  it("without the query vector, a row holding no query word scores the floor, as its cover density (0) would give", async () => {
    // Cover density is computed only for rows the query matches: it read each row's whole tsvector, and a year's
    // window for one user at a million episodes (3,334 rows) spent 11.8 of its 13 ms on rows holding no query word.
    const depth = 40; // more than the 24 dinners: the office notes fill the rest at the floor
    const words = { ...WORDS, recipe: { ...WORDS.recipe!, depths: { ...WORDS.recipe!.depths, temporal: depth } } };
    const { episodes } = await rank(temporalBranchesWith(5_000), YEAR_2025, words);
    const lengthS = (YEAR_2025.end.getTime() - YEAR_2025.start.getTime()) / 1000;
    const { rows } = await api.deps.pool.query<{ id: string; score: number }>(
      `SELECT r.id, ((0.2 + ts_rank_cd(r.content_tsv, to_tsquery('english', $2), 32))
                     / (1 + GREATEST(0, date_part('epoch', $3::timestamptz - r.occurred_at), date_part('epoch', r.occurred_at - $4::timestamptz)) / $5))::float8 AS score
       FROM episode r WHERE r.namespace = $1 AND r.forgotten_at IS NULL
         AND r.occurred_at >= $3::timestamptz - make_interval(secs => $5) AND r.occurred_at < $4::timestamptz + make_interval(secs => $5)
       ORDER BY score DESC, r.id LIMIT $6`,
      [NS, WORDS.tsquery, YEAR_2025.start, YEAR_2025.end, lengthS, depth],
    );
    expect(rows).toHaveLength(depth);
    expect(rows.filter((r) => Number(r.score) <= 0.2).length).toBeGreaterThan(0);
    expect(episodes.map((h) => h.id)).toEqual(rows.map((r) => r.id));
    episodes.forEach((h, i) => expect(h.score).toBeCloseTo(Number(rows[i].score), 12));
  });

  it("without the query vector, a window's facts holding no query word follow those that do at the floor, in id order, as the full scan ranks them", async () => {
    // Namespace-wide, the exact scan reads from the table only the window's facts holding a query word (the text
    // index finds them); the rest take the floor score without being read. Here 15 of the 30 facts say "dinner".
    const depth = 40;
    const words = { ...WORDS, recipe: { ...WORDS.recipe!, depths: { ...WORDS.recipe!.depths, temporal: depth } } };
    const { facts } = await rank(temporalBranchesWith(5_000), YEAR_2025, words);
    const { rows } = await api.deps.pool.query<{ id: string; score: number }>(
      `SELECT r.id, (0.2 + CASE WHEN r.fact_tsv @@ to_tsquery('english', $2) THEN ts_rank_cd(r.fact_tsv, to_tsquery('english', $2), 32) ELSE 0 END)::float8 AS score
       FROM fact r WHERE r.namespace = $1 AND r.forgotten_at IS NULL AND NOT r.stale AND r.valid_from < $4::timestamptz
         AND (r.invalid_at IS NULL OR r.invalid_at > $3::timestamptz)
       ORDER BY score DESC, r.id LIMIT $5`,
      [NS, WORDS.tsquery, YEAR_2025.start, YEAR_2025.end, depth],
    );
    expect(rows).toHaveLength(30);
    expect(rows.filter((r) => Number(r.score) > 0.2)).toHaveLength(15);
    expect(facts.map((h) => h.id)).toEqual(rows.map((r) => r.id));
    facts.forEach((h, i) => expect(h.score).toBeCloseTo(Number(rows[i].score), 12));
    // Fewer wanted than hold a query word: only those, best first.
    const few = { ...WORDS, recipe: { ...WORDS.recipe!, depths: { ...WORDS.recipe!.depths, temporal: 5 } } };
    const top = await rank(temporalBranchesWith(5_000), YEAR_2025, few);
    expect(top.facts.map((h) => h.id)).toEqual(rows.slice(0, 5).map((r) => r.id));
  });

  /** The scans under each window-count CTE in the read path's own kind of plan: a prepared statement's generic plan, on a read-path connection. */
  async function windowScans(scope: SignalInput['scope'], window: typeof YEAR_2025 = YEAR_2025) {
    const p = new SqlParams();
    const part = (await temporalBranchesWith(5_000)(input(window, { scope }), p))!;
    const plan = await preparedPlan(api.deps.readPool, `WITH ${part.ctes.join(', ')} ${part.branches.join(' UNION ALL ')}`, p.values);
    return (cte: string) =>
      nodesOf(nodesOf(plan).find((n) => n['Subplan Name'] === `CTE ${cte}`)!)
        .filter((n) => n['Relation Name'] !== undefined)
        .map((n) => [n['Node Type'], n['Index Name']]);
  }

  it("counts a window's live episodes and facts from an index alone, without reading the rows", async () => {
    // The count only chooses the branch; reading each counted row from the heap made it cost as much as scoring
    // them (7.7 and 6.2 ms of a namespace-wide "in June" at 100,000 episodes). On a table of a few thousand rows
    // (a few dozen would rather be read whole) both counts are index-only scans.
    const pool = api.deps.pool;
    const bulk = 'window_counts';
    const subject = await insertEntity(pool, { namespace: bulk, name: 'Bulk' });
    await pool.query(
      `INSERT INTO episode (id, namespace, user_id, content, metadata, occurred_at, status, workflow_id, extracted_at)
       SELECT gen_random_uuid(), $1, 'u1', 'row ' || g, '{}', '2025-01-01'::timestamptz + g * interval '2 hours', 'extracted', 'episode:bulk-' || g, now()
       FROM generate_series(1, 3000) g`,
      [bulk],
    );
    await pool.query(
      `INSERT INTO fact (id, namespace, scope_user, subject_id, predicate, predicate_raw, family, value, fact_text, memory_kind, importance,
                         confidence, decay_class, last_confirmed_at, valid_from, recorded_at, source, sensitivity)
       SELECT gen_random_uuid(), $1, 'u1', $2, 'likes', 'likes', 'preferences', 'yes', 'fact ' || g, 'semantic', 0.5, 0.7, 'slow_decay',
              '2026-01-01', '2025-01-01'::timestamptz + g * interval '2 hours', '2026-01-01', 'test', 'internal'
       FROM generate_series(1, 3000) g`,
      [bulk, subject],
    );
    // As autovacuum leaves a table: statistics, and pages marked all-visible (what lets a scan skip the heap).
    await pool.query('VACUUM ANALYZE episode');
    await pool.query('VACUUM ANALYZE fact');
    const scansOf = await windowScans({ namespace: bulk, now: NOW, includeForgotten: false });
    expect(scansOf('temporal_episode_window')).toEqual([['Index Only Scan', 'episode_live_occurred_idx']]);
    // Namespace-wide, the fact count reads the window's ids, which the exact scan reads its rows by.
    expect(scansOf('temporal_fact_window_ids')).toEqual([['Index Only Scan', 'fact_live_validity_idx']]);
    // A context block leaves out facts faded below DECAY_FLOOR: that test reads confidence, decay class and last
    // confirmation, which the index carries too (a namespace-wide "… in September" at 100,000 episodes counted
    // its facts in 34 ms when each was read from the heap for them).
    const withFloor = await windowScans({ namespace: bulk, now: NOW, includeForgotten: false, minConfidence: 0.1 });
    expect(withFloor('temporal_fact_window_ids')).toEqual([['Index Only Scan', 'fact_live_validity_idx']]);
  });

  it("narrowed to a user, counts only the user's rows in the window, from an index alone", async () => {
    // The scope index (namespace, user_id) hands over every row of the user to check the range on: a month at a
    // million episodes read 3,333 rows for none in it. Then the count still read each row of the window from the
    // heap for user_id and forgotten_at ("… in 2025" for one user at a million: 3,334 rows, 6.5–8.5 ms); the
    // index carries both now (1.4–1.7 ms). Here 30 users with 200 turns each through 2025.
    const pool = api.deps.pool;
    const users = 'window_users';
    await insertEntity(pool, { namespace: users, name: 'Bulk' });
    await pool.query(
      `INSERT INTO episode (id, namespace, user_id, content, metadata, occurred_at, status, workflow_id, extracted_at)
       SELECT gen_random_uuid(), $1, 'u' || (g % 30), 'row ' || g, '{}', '2025-01-01'::timestamptz + g * interval '90 minutes', 'extracted', 'episode:users-' || g, now()
       FROM generate_series(1, 6000) g`,
      [users],
    );
    await pool.query('VACUUM ANALYZE episode');
    const scansOf = await windowScans({ namespace: users, userId: 'u1', now: NOW, includeForgotten: false }, MARCH_2025);
    expect(scansOf('temporal_episode_window')).toEqual([['Index Only Scan', 'episode_conversation_idx']]);
  });

  it("namespace-wide, the exact scan reads the window's facts by the ids the count read, and ranks them as the scan over the scope does", async () => {
    // Every fact here is u1's: narrowed to u1 the exact scan reads them through the scope index, namespace-wide by
    // the ids the live-validity index yields. Both ways, with and without the decay floor a context block sets.
    // March 2025 holds the facts begun by its end (validity has no end here): fewer than the depth, so a row
    // outside the window would show.
    for (const window of [YEAR_2025, MARCH_2025]) {
      for (const minConfidence of [undefined, 0.1]) {
        for (const overrides of [{}, WORDS]) {
          const scope = { namespace: NS, now: NOW, includeForgotten: false, minConfidence };
          const namespaceWide = await rank(temporalBranchesWith(5_000), window, { ...overrides, scope });
          const narrowed = await rank(temporalBranchesWith(5_000), window, { ...overrides, scope: { ...scope, userId: 'u1' } });
          expect(namespaceWide.facts.length).toBeGreaterThan(0);
          expect(namespaceWide.facts).toEqual(narrowed.facts);
        }
      }
    }
  });

  it('a window within the bound is still scored row by row', async () => {
    // March 2025 padded by a month each side: about 13 episodes, under a bound of 20.
    await expect(branchesRun(temporalBranchesWith(20), MARCH_2025)).resolves.toMatchObject({ episodeExact: true, episodeNearest: false });
    const exact = await rank(temporalBranchesWith(5_000), MARCH_2025);
    const gated = await rank(temporalBranchesWith(20), MARCH_2025);
    expect(gated.episodes).toEqual(exact.episodes);
  });
});
