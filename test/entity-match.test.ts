import { entitiesNamedIn, topNamedEntityIdsSql } from '../core/retrieval/entityMatch.js';
import { nameGrams } from '../core/retrieval/queryText.js';
import { SqlParams } from '../core/retrieval/sql.js';
import type { ReadScope } from '../core/retrieval/scope.js';
import { insertEntity, type ReadApi, useReadApi } from './support/graphFixtures.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'namematch';

describe('entities a query names: exact names and aliases first, trigram matches only where they can still count', () => {
  let api: ReadApi;
  const ids: Record<string, string> = {};
  const scope: ReadScope = { namespace: NS, now: NOW, includeForgotten: false };
  const QUESTION = 'Did Ana Lee meet Bo Chen and Dee at Acme Corporatoin?';

  useReadApi(NOW, async (started) => {
    api = started;
    const db = api.deps.pool;
    ids.ana = await insertEntity(db, { namespace: NS, name: 'Ana Lee' });
    ids.bo = await insertEntity(db, { namespace: NS, name: 'Bo Chen' });
    ids.cy = await insertEntity(db, { namespace: NS, name: 'Cy Diaz', aliases: ['Dee'] });
    ids.acme = await insertEntity(db, { namespace: NS, name: 'Acme Corporation', type: 'organization' });
  });

  const named = async (limit: number, fuzzy?: boolean) =>
    (await entitiesNamedIn(api.deps.pool, scope, QUESTION, limit, fuzzy === undefined ? {} : { fuzzy })).map((s) => ({ id: s.id, score: s.score }));

  it('finds the misspelt organization by trigrams when the exact names leave room', async () => {
    const found = await named(8);
    expect(found.slice(0, 3).map((s) => s.id).sort()).toEqual([ids.ana, ids.bo, ids.cy].sort());
    expect(found.slice(0, 3).map((s) => s.score).sort()).toEqual([0.9, 1, 1]);
    expect(found[3]).toMatchObject({ id: ids.acme });
    expect(found[3].score).toBeGreaterThanOrEqual(0.4); // 0.8 × similarity, which is at least 0.5
    expect(found[3].score).toBeLessThan(0.8);
  });

  it('gives the same top entities when exact names and aliases fill the limit (the trigram scan is skipped)', async () => {
    const all = await named(8);
    expect(await named(3)).toEqual(all.slice(0, 3));
    expect(await named(2)).toEqual(all.slice(0, 2));
  });

  it('as a subquery (what a namespace-wide context block reads facts of), names the same top entities in the same order', async () => {
    for (const limit of [1, 2, 3, 8]) {
      const p = new SqlParams();
      const sql = topNamedEntityIdsSql(p, scope, nameGrams(QUESTION), limit);
      const { rows } = await api.deps.pool.query<{ id: string }>(sql, p.values);
      expect(rows.map((r) => r.id)).toEqual((await named(limit, false)).map((s) => s.id));
    }
    // Exact names (Ana Lee, Bo Chen) come before the alias (Dee): a limit of 2 leaves Cy Diaz out.
    const p = new SqlParams();
    const { rows } = await api.deps.pool.query<{ id: string }>(topNamedEntityIdsSql(p, scope, nameGrams(QUESTION), 2), p.values);
    expect(rows.map((r) => r.id).sort()).toEqual([ids.ana, ids.bo].sort());
  });

  it('leaves trigram matches out when asked to, keeping exact names and aliases', async () => {
    const exactOnly = await named(8, false);
    expect(exactOnly).toEqual((await named(8)).filter((s) => s.score >= 0.9));
    expect(exactOnly.map((s) => s.id)).not.toContain(ids.acme);
  });
});
