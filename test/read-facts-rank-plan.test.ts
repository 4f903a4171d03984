import type { Queryable } from '../core/db/pool.js';
import { effectiveConfidenceSql } from '../core/retrieval/decaySql.js';
import { queryCompactFacts } from '../core/retrieval/facts.js';
import type { ReadScope } from '../core/retrieval/scope.js';
import { withReadClient } from '../core/retrieval/sql.js';
import { userFactCondition } from '../core/retrieval/userEntity.js';
import { insertEntity, type ReadApi, useReadApi } from './support/graphFixtures.js';
import { nodesOf, preparedPlan } from './support/plans.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'rank_plan';

describe("a user's facts ranked for a context block", () => {
  let api: ReadApi;

  useReadApi(NOW, async (started) => {
    api = started;
    const pool = api.deps.pool;
    const subject = await insertEntity(pool, { namespace: NS, name: 'Bulk', scopeUser: 'u1' });
    // 30 users with 100 facts each, of three decay classes and spread confidence, so the ranking has work to do.
    await pool.query(
      `INSERT INTO fact (id, namespace, scope_user, subject_id, predicate, predicate_raw, family, value, fact_text, memory_kind, importance,
                         confidence, decay_class, last_confirmed_at, valid_from, recorded_at, source, sensitivity)
       SELECT gen_random_uuid(), $1, 'u' || (g % 30), $2, 'likes', 'likes', 'preferences', 'yes', 'fact ' || g, 'semantic', 0.5,
              0.3 + (g % 7) / 10.0, (ARRAY['permanent', 'slow_decay', 'fast_decay'])[1 + g % 3],
              '2026-01-01'::timestamptz + (g % 97) * interval '1 day', '2025-01-01', '2026-01-01', 'test', 'internal'
       FROM generate_series(1, 3000) g`,
      [NS, subject],
    );
    // As autovacuum leaves a table: statistics, and pages marked all-visible (what lets a scan skip the heap).
    await api.deps.pool.query('VACUUM ANALYZE fact');
  });

  /** The statement a context block sends for u1's facts, and its parameters. */
  async function factsStatement(scope: ReadScope): Promise<{ text: string; values: unknown[] }> {
    let sent: { text: string; values: unknown[] } | undefined;
    const recorder: Queryable = {
      query: (async (text: string, values?: unknown[]) => {
        sent = { text, values: values ?? [] };
        return { rows: [] };
      }) as Queryable['query'],
    };
    await queryCompactFacts(recorder, scope, { where: (p) => userFactCondition(p, { ...scope, userId: 'u1' }), order: 'effective', limit: 60 });
    return sent!;
  }

  it('ranks them from an index alone and reads only the kept ones from the table', async () => {
    // Each fact's row carries its embedding (about 1.5 kB): ranked from the table, every fact of the user was a
    // page read, 673 for a user at a million episodes. The scans of `fact` in the read path's own kind of plan (a
    // prepared statement's generic plan, on a read-path connection): the ranking's, then the kept facts' by id.
    const scope: ReadScope = { namespace: NS, userId: 'u1', now: NOW, includeForgotten: false, minConfidence: 0.05 };
    const { text, values } = await factsStatement(scope);
    const scans = nodesOf(await preparedPlan(api.deps.readPool, text, values))
      .filter((n) => n['Relation Name'] === 'fact')
      .map((n) => [n['Node Type'], n['Index Name']]);
    expect(scans).toEqual([
      ['Index Only Scan', 'fact_scope_rank_idx'],
      ['Index Scan', 'fact_pkey'],
    ]);
  });

  it('keeps the same facts in the same order as ranking the rows of the table', async () => {
    const scope: ReadScope = { namespace: NS, userId: 'u1', now: NOW, includeForgotten: false, minConfidence: 0.05 };
    const kept = await withReadClient(api.deps.readPool, (db) =>
      queryCompactFacts(db, scope, { where: (p) => userFactCondition(p, { ...scope, userId: 'u1' }), order: 'effective', limit: 60 }),
    );
    // The same ranking in one step over the table's rows: effective confidence at NOW, the latest confirmed, id.
    const effective = effectiveConfidenceSql('f', '$2::timestamptz');
    const { rows } = await api.deps.pool.query<{ id: string }>(
      `SELECT f.id FROM fact f
       WHERE f.namespace = $1 AND f.scope_user = 'u1' AND f.forgotten_at IS NULL AND NOT f.stale AND f.expired_at IS NULL AND ${effective} >= 0.05
       ORDER BY ${effective} DESC, f.last_confirmed_at DESC, f.id
       LIMIT 60`,
      [NS, NOW],
    );
    expect(kept.length).toBe(60);
    expect(kept.map((f) => f.id)).toEqual(rows.map((r) => r.id));
  });
});
