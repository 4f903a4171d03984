import { randomUUID } from 'node:crypto';
import { rechainStoredHistory } from '../activities/rechainStored.js';
import { remember, startTestStack, waitForStatus, type TestStack } from './support/stack.js';

/**
 * Issue 24: the values of a single-valued predicate form one chain in world
 * time, whatever order their episodes arrive in (heuristic provider, real
 * Temporal + Postgres).
 */

interface FactJson {
  id: string;
  object: { name: string } | null;
  value: string | null;
  fact_text: string;
  valid_from: string | null;
  invalid_at: string | null;
  invalidated_by: string | null;
  expired_at: string | null;
}

describe('history in any order (issue 24)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  const target = (f: FactJson) => f.object?.name ?? f.value;

  async function facts(namespace: string, query: Record<string, string>): Promise<FactJson[]> {
    const res = await stack.request<{ facts: FactJson[] }>('GET', `/v1/facts?${new URLSearchParams({ namespace, predicate: 'works_at', ...query })}`);
    expect(res.status).toBe(200);
    return res.body.facts;
  }

  /** The chain by value: [value, valid_from, invalid_at, value of invalidated_by], oldest first. */
  async function chain(namespace: string, subject: string): Promise<Array<[string | null, string | null, string | null, string | null]>> {
    const all = await facts(namespace, { subject, include_invalidated: 'true' });
    const byId = new Map(all.map((f) => [f.id, f]));
    return all
      .filter((f) => !(f.expired_at && !f.invalid_at))
      .sort((a, b) => Date.parse(a.valid_from ?? '1970-01-01') - Date.parse(b.valid_from ?? '1970-01-01'))
      .map((f) => [target(f), f.valid_from, f.invalid_at, f.invalidated_by ? target(byId.get(f.invalidated_by)!) : null]);
  }

  async function reviewKinds(namespace: string): Promise<string[]> {
    const { rows } = await stack.deps.pool.query<{ kind: string }>('SELECT kind FROM review_item WHERE namespace = $1 ORDER BY kind', [namespace]);
    return rows.map((r) => r.kind);
  }

  async function explicitFact(namespace: string, fact: Record<string, unknown>) {
    const res = await stack.request<{ id: string }>('POST', '/v1/facts', { namespace, fact: { subject: 'Ines Berg', subject_type: 'person', predicate: 'works_at', object_type: 'organization', ...fact } });
    expect(res.status).toBe(202);
    expect((await waitForStatus(stack, res.body.id)).status).toBe('extracted');
  }

  it('Skoda/Tatra: an older note imported after a newer one is history, not a conflict', async () => {
    const ns = 'history-skoda-tatra';
    await remember(stack, { namespace: ns, content: 'Pavel Novak works at Skoda.', occurred_at: '2026-06-01T09:00:00Z' });
    await remember(stack, { namespace: ns, content: 'Pavel Novak works at Tatra.', occurred_at: '2026-01-15T09:00:00Z' });

    expect((await facts(ns, { subject: 'Pavel Novak' })).map(target)).toEqual(['Skoda']);
    expect((await facts(ns, { subject: 'Pavel Novak', as_of: '2026-03-01T00:00:00Z' })).map(target)).toEqual(['Tatra']);
    expect(await facts(ns, { subject: 'Pavel Novak', as_of: '2026-01-01T00:00:00Z' })).toEqual([]);
    expect(await chain(ns, 'Pavel Novak')).toEqual([
      ['Tatra', '2026-01-15T09:00:00.000Z', '2026-06-01T09:00:00.000Z', 'Skoda'],
      ['Skoda', '2026-06-01T09:00:00.000Z', null, null],
    ]);
    expect(await reviewKinds(ns)).toEqual([]);
  });

  it('three values arriving in reverse order form the sorted chain', async () => {
    const ns = 'history-reverse';
    await remember(stack, { namespace: ns, content: 'Pavel Novak works at Volvo.', occurred_at: '2026-05-01T09:00:00Z' });
    await remember(stack, { namespace: ns, content: 'Pavel Novak works at Tatra.', occurred_at: '2026-03-01T09:00:00Z' });
    await remember(stack, { namespace: ns, content: 'Pavel Novak works at Skoda.', occurred_at: '2026-01-01T09:00:00Z' });
    expect(await chain(ns, 'Pavel Novak')).toEqual([
      ['Skoda', '2026-01-01T09:00:00.000Z', '2026-03-01T09:00:00.000Z', 'Tatra'],
      ['Tatra', '2026-03-01T09:00:00.000Z', '2026-05-01T09:00:00.000Z', 'Volvo'],
      ['Volvo', '2026-05-01T09:00:00.000Z', null, null],
    ]);
    expect((await facts(ns, { subject: 'Pavel Novak', as_of: '2026-04-01T00:00:00Z' })).map(target)).toEqual(['Tatra']);
    expect(await reviewKinds(ns)).toEqual([]);
  });

  it('a late value between two known ones slots in, audited as one change', async () => {
    const ns = 'history-slot-in';
    await remember(stack, { namespace: ns, content: 'Pavel Novak works at Skoda.', occurred_at: '2026-01-01T09:00:00Z' });
    await remember(stack, { namespace: ns, content: 'Pavel Novak works at Volvo.', occurred_at: '2026-05-01T09:00:00Z' });
    const late = await remember(stack, { namespace: ns, content: 'Pavel Novak works at Tatra.', occurred_at: '2026-03-01T09:00:00Z' });
    expect(await chain(ns, 'Pavel Novak')).toEqual([
      ['Skoda', '2026-01-01T09:00:00.000Z', '2026-03-01T09:00:00.000Z', 'Tatra'],
      ['Tatra', '2026-03-01T09:00:00.000Z', '2026-05-01T09:00:00.000Z', 'Volvo'],
      ['Volvo', '2026-05-01T09:00:00.000Z', null, null],
    ]);
    const { rows } = await stack.deps.pool.query<{ action: string; before: Array<{ invalid_at: string }>; after: Array<{ invalid_at: string }> }>(
      `SELECT action, before, after FROM audit_log WHERE namespace = $1 AND episode_id = $2 AND action = 'fact.rechained'`,
      [ns, late.id],
    );
    expect(rows).toHaveLength(1);
    expect([rows[0].before[0].invalid_at, rows[0].after[0].invalid_at]).toEqual(['2026-05-01T09:00:00.000Z', '2026-03-01T09:00:00.000Z']);
    expect(await reviewKinds(ns)).toEqual([]);
  });

  it('keeps an end the statement gave: the chain never stretches a value past it', async () => {
    const ns = 'history-explicit-end';
    await explicitFact(ns, { object: 'Skoda', valid_from: '2026-06-01T00:00:00Z' });
    await explicitFact(ns, { object: 'Tatra', valid_from: '2026-01-01T00:00:00Z', invalid_at: '2026-03-01T00:00:00Z' });
    await remember(stack, { namespace: ns, content: 'Ines Berg worked at Volvo until May 2025.', occurred_at: '2026-02-01T09:00:00Z' });
    expect(await chain(ns, 'Ines Berg')).toEqual([
      ['Volvo', null, '2025-05-01T00:00:00.000Z', null],
      ['Tatra', '2026-01-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z', null],
      ['Skoda', '2026-06-01T00:00:00.000Z', null, null],
    ]);
    expect(await facts(ns, { subject: 'Ines Berg', as_of: '2026-04-01T00:00:00Z' })).toEqual([]);
  });

  it('a past of unknown start, a dated stint and a job of now end in one chain in all six orders', async () => {
    const tenYears = { content: 'I worked at Acme for ten years.', occurred_at: '2026-06-01T09:00:00Z' };
    const globex = { content: 'I worked at Globex in 2010.', occurred_at: '2026-03-01T09:00:10Z' };
    const now = { content: 'I work at Acme.', occurred_at: '2026-03-01T09:00:00Z' };
    const orders = [[now, globex, tenYears], [now, tenYears, globex], [globex, now, tenYears], [globex, tenYears, now], [tenYears, now, globex], [tenYears, globex, now]];
    for (const [i, order] of orders.entries()) {
      const ns = `history-three-orders-${i}`;
      for (const episode of order) await remember(stack, { namespace: ns, user_id: 'lea', speaker: 'Lea Brandt', ...episode });
      // Told in order: Acme from March until June (the ten years ended it), Globex through 2010.
      expect([i, await chain(ns, 'Lea Brandt')]).toEqual([
        i,
        [
          ['Globex', '2010-01-01T00:00:00.000Z', '2011-01-01T00:00:00.000Z', null],
          ['Acme', '2026-03-01T09:00:00.000Z', '2026-06-01T09:00:00.000Z', null],
        ],
      ]);
    }
  });

  it('two periods of one value are one row with the same text in either order, and a move before a year is where she lives now', async () => {
    const in2005 = { content: 'I worked at Acme in 2005.', occurred_at: '2026-06-01T09:00:00Z' };
    const in2006 = { content: 'I worked at Acme in 2006.', occurred_at: '2026-06-01T09:05:00Z' };
    for (const [i, order] of [[in2005, in2006], [in2006, in2005]].entries()) {
      const ns = `history-two-periods-${i}`;
      for (const episode of order) await remember(stack, { namespace: ns, speaker: 'Lea Brandt', ...episode });
      const all = await facts(ns, { subject: 'Lea Brandt', include_invalidated: 'true' });
      // Told 2006 first, the row read "… in 2006." from 2005 on.
      expect([i, all.map((f) => [target(f), f.fact_text, f.valid_from, f.invalid_at])]).toEqual([
        i,
        [['Acme', 'Lea Brandt worked at Acme in 2005.', '2005-01-01T00:00:00.000Z', '2007-01-01T00:00:00.000Z']],
      ]);
    }
    // "Before 2020" dates the move, not the end of the stay: she lives in Berlin now.
    const ns = 'history-moved-before';
    await remember(stack, { namespace: ns, speaker: 'Lea Brandt', content: 'I moved to Berlin before 2020.', occurred_at: '2026-06-01T09:00:00Z' });
    const now = await stack.request<{ facts: FactJson[] }>('GET', `/v1/facts?${new URLSearchParams({ namespace: ns, subject: 'Lea Brandt', predicate: 'lives_in' })}`);
    expect(now.body.facts.map((f) => [target(f), f.fact_text, f.valid_from, f.invalid_at])).toEqual([['Berlin', 'Lea Brandt lives in Berlin as of 2020.', '2020-01-01T00:00:00.000Z', null]]);
  });

  it('a denial says nothing held: alone it is in no view of a time, and it ends the statement of its value told before it in either order', async () => {
    const denial = { content: "I don't work at Acme.", occurred_at: '2026-06-01T09:00:00Z' };
    const job = { content: 'I work at Acme.', occurred_at: '2026-03-01T09:00:00Z' };
    const alone = 'history-denial-alone';
    await remember(stack, { namespace: alone, speaker: 'Lea Brandt', ...denial });
    // It was stored as Acme held from an unknown start until June, read so by a view of 2009.
    expect(await facts(alone, { subject: 'Lea Brandt', as_of: '2009-06-01T00:00:00Z' })).toEqual([]);
    expect(await facts(alone, { subject: 'Lea Brandt', as_of: '2026-05-01T00:00:00Z' })).toEqual([]);
    for (const [i, order] of [[job, denial], [denial, job]].entries()) {
      const ns = `history-denial-${i}`;
      for (const episode of order) await remember(stack, { namespace: ns, speaker: 'Lea Brandt', ...episode });
      const all = await facts(ns, { subject: 'Lea Brandt', include_invalidated: 'true' });
      // Told the other way round it read "Lea does not work at Acme." for the months she worked there.
      expect([i, all.map((f) => [target(f), f.fact_text, f.valid_from, f.invalid_at])]).toEqual([i, [['Acme', 'Lea Brandt works at Acme.', '2026-03-01T09:00:00.000Z', '2026-06-01T09:00:00.000Z']]]);
    }
    // A predicate with many values (owns) keeps no chain: the denial told first still ends what was owned before it.
    const owned = 'history-denial-owns';
    await remember(stack, { namespace: owned, speaker: 'Lea Brandt', content: "I don't own a Tesla.", occurred_at: '2026-06-01T09:00:00Z' });
    await remember(stack, { namespace: owned, speaker: 'Lea Brandt', content: 'I own a Tesla.', occurred_at: '2026-03-01T09:00:00Z' });
    const { rows } = await stack.deps.pool.query<{ fact_text: string; valid_from: Date; invalid_at: Date }>(
      `SELECT fact_text, valid_from, invalid_at FROM fact WHERE namespace = $1 AND predicate = 'owns' ORDER BY valid_from`,
      [owned],
    );
    expect(rows.map((r) => [r.fact_text, r.valid_from.toISOString(), r.invalid_at.toISOString()])).toEqual([
      ['Lea Brandt owns Tesla.', '2026-03-01T09:00:00.000Z', '2026-06-01T09:00:00.000Z'],
      ['Lea Brandt does not own Tesla.', '2026-06-01T09:00:00.000Z', '2026-06-01T09:00:00.000Z'],
    ]);
  });

  it('a tie in world time is still arbitrated: equal confidence opens a review, lower is rejected', async () => {
    const ns = 'history-tie';
    await explicitFact(ns, { object: 'Skoda', valid_from: '2026-02-01T00:00:00Z', confidence: 0.7 });
    await explicitFact(ns, { object: 'Tatra', valid_from: '2026-02-01T00:00:00Z', confidence: 0.7 });
    expect(await reviewKinds(ns)).toEqual(['conflict']);
    await explicitFact(ns, { object: 'Volvo', valid_from: '2026-02-01T00:00:00Z', confidence: 0.5 });
    expect(await reviewKinds(ns)).toEqual(['conflict', 'rejected_write']);
    expect((await facts(ns, { subject: 'Ines Berg' })).map(target)).toEqual(['Skoda']);
    const rejected = await stack.deps.pool.query(`SELECT 1 FROM audit_log WHERE namespace = $1 AND action = 'fact.rejected'`, [ns]);
    expect(rejected.rowCount).toBe(1);
  });

  it('re-chains a late value held back for review under the earlier rule, and closes the moot review item', async () => {
    const ns = 'history-legacy';
    const pool = stack.deps.pool;
    await pool.query('INSERT INTO namespace (id, history_rechained_at) VALUES ($1, NULL)', [ns]);
    const [pavel, skoda, tatra] = [randomUUID(), randomUUID(), randomUUID()];
    await pool.query(
      `INSERT INTO entity (id, namespace, scope_user, type, name, name_key, first_seen_at, last_seen_at)
       SELECT id, $4, '', type, name, lower(name), now(), now()
         FROM (VALUES ($1::uuid, 'person', 'Pavel Novak'), ($2::uuid, 'organization', 'Skoda'), ($3::uuid, 'organization', 'Tatra')) AS e(id, type, name)`,
      [pavel, skoda, tatra, ns],
    );
    const [current, heldBack] = [randomUUID(), randomUUID()];
    const insertFact = `INSERT INTO fact (id, namespace, scope_user, subject_id, predicate, predicate_raw, family, object_id, fact_text, memory_kind,
                                          importance, confidence, decay_class, last_confirmed_at, valid_from, expired_at, properties, source, sensitivity)
                        VALUES ($1, $2, '', $3, 'works_at', 'works at', 'work', $4, $5, 'semantic', 0.5, 0.7, 'slow_decay', now(), $6, $7, $8, 'test', 'internal')`;
    await pool.query(insertFact, [current, ns, pavel, skoda, 'Pavel Novak works at Skoda.', '2026-06-01T09:00:00Z', null, '{}']);
    // The earlier rule: a late, older value of equal confidence was held back (expired, pending review) with a conflict item.
    await pool.query(insertFact, [heldBack, ns, pavel, tatra, 'Pavel Novak works at Tatra.', '2026-01-15T09:00:00Z', new Date(), '{"pending_review": true}']);
    const { rows: items } = await pool.query<{ id: string }>(
      `INSERT INTO review_item (namespace, kind, title, payload, fact_ids) VALUES ($1, 'conflict', 'Conflict: backfill', '{}', $2::uuid[]) RETURNING id`,
      [ns, [current, heldBack]],
    );

    expect(await rechainStoredHistory(stack.deps)).toEqual({ namespaces: 1, rechained: 1 });
    expect(await rechainStoredHistory(stack.deps)).toEqual({ namespaces: 0, rechained: 0 });

    expect(await chain(ns, 'Pavel Novak')).toEqual([
      ['Tatra', '2026-01-15T09:00:00.000Z', '2026-06-01T09:00:00.000Z', 'Skoda'],
      ['Skoda', '2026-06-01T09:00:00.000Z', null, null],
    ]);
    expect((await facts(ns, { subject: 'Pavel Novak', as_of: '2026-03-01T00:00:00Z' })).map(target)).toEqual(['Tatra']);
    const { rows: closed } = await pool.query<{ status: string; resolution: { reason: string } }>('SELECT status, resolution FROM review_item WHERE id = $1', [items[0].id]);
    expect(closed[0].status).toBe('resolved');
    expect(closed[0].resolution.reason).toMatch(/history order/);
    const { rows: audit } = await pool.query<{ action: string }>(`SELECT action FROM audit_log WHERE namespace = $1 ORDER BY id`, [ns]);
    expect(audit.map((a) => a.action)).toEqual(['fact.rechained', 'review.closed']);
  });
});
