import { queryCompactFacts, queryFacts } from '../core/retrieval/facts.js';
import type { ReadScope } from '../core/retrieval/scope.js';
import { withReadClient } from '../core/retrieval/sql.js';
import { insertEntity, insertEpisode, insertFact, type ReadApi, useReadApi } from './support/graphFixtures.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'facts_view';

/**
 * What reaches a fact view is what the table holds: timestamps at millisecond precision whatever the session's zone,
 * nulls, texts with quotes, newlines and non-ASCII characters, the object's name and type, and only the live episodes,
 * oldest first; a context block's compact view is the same facts in the same order. (Written when the statement was
 * tried returning its rows as one JSON array, which was measured and not kept; it holds for either form.)
 */
describe('facts as the table holds them', () => {
  let api: ReadApi;
  let ana: string;
  let acme: string;
  let older: string;
  let newer: string;

  useReadApi(NOW, async (started) => {
    api = started;
    const pool = api.deps.pool;
    ana = await insertEntity(pool, { namespace: NS, name: 'Ana', type: 'person', scopeUser: 'u1' });
    acme = await insertEntity(pool, { namespace: NS, name: 'Acme "North" Café', type: 'organization', scopeUser: 'u1' });
    newer = await insertEpisode(pool, { namespace: NS, content: 'Ana joined Acme.', occurredAt: '2026-03-02T09:00:00Z', userId: 'u1' });
    older = await insertEpisode(pool, { namespace: NS, content: 'Ana applied at Acme.', occurredAt: '2026-03-01T09:00:00Z', userId: 'u1' });
    const forgotten = await insertEpisode(pool, { namespace: NS, content: 'Ana works at Acme.', occurredAt: '2026-02-01T09:00:00Z', userId: 'u1', forgottenAt: '2026-04-01T00:00:00Z' });
    await insertFact(pool, {
      namespace: NS,
      scopeUser: 'u1',
      subjectId: ana,
      predicate: 'works_at',
      objectId: acme,
      factText: 'Ana works at Acme "North" Café — naïve 🙂',
      confidence: 0.9,
      decayClass: 'permanent',
      validFrom: '2026-03-01T10:00:00.123456Z',
      lastConfirmedAt: '2026-05-01T08:30:00.987654+02:00',
      episodeIds: [newer, forgotten, older],
    });
    await insertFact(pool, { namespace: NS, scopeUser: 'u1', subjectId: ana, predicate: 'likes', value: 'tea\nand "coffee"', factText: 'Ana likes tea', confidence: 0.5 });
  });

  const scope: ReadScope = { namespace: NS, userId: 'u1', now: NOW, includeForgotten: false };
  const everyFact = { where: () => 'true', order: 'effective' as const, limit: 10 };

  it('gives every field as the table holds it', async () => {
    // A session zone east of UTC by a fraction of an hour: PostgreSQL writes timestamps in it (…+05:30).
    const facts = await withReadClient(api.deps.readPool, async (db) => {
      await db.query("SET TIME ZONE 'Asia/Kolkata'");
      try {
        expect((await db.query<{ z: string }>("SELECT to_json('2026-01-01T00:00:00Z'::timestamptz)::text AS z")).rows[0].z).toBe('"2026-01-01T05:30:00+05:30"');
        return await queryFacts(db, scope, everyFact);
      } finally {
        await db.query('RESET TIME ZONE');
      }
    });
    const { rows } = await api.deps.pool.query<{ id: string; value: string | null; valid_from: Date | null; last_confirmed_at: Date; recorded_at: Date }>(
      `SELECT id, value, valid_from, last_confirmed_at, recorded_at FROM fact WHERE namespace = $1 ORDER BY confidence DESC`,
      [NS],
    );
    expect(facts.map((f) => f.id)).toEqual(rows.map((r) => r.id));
    const [works, likes] = facts;
    expect(works).toMatchObject({
      subject: { id: ana, name: 'Ana', type: 'person' },
      object: { id: acme, name: 'Acme "North" Café', type: 'organization' },
      value: null,
      fact_text: 'Ana works at Acme "North" Café — naïve 🙂',
      confidence: 0.9,
      decay_class: 'permanent',
      valid_from: rows[0].valid_from!.toISOString(),
      last_confirmed_at: rows[0].last_confirmed_at.toISOString(),
      recorded_at: rows[0].recorded_at.toISOString(),
      invalid_at: null,
      forgotten_at: null,
      episode_ids: [older, newer],
    });
    expect(works.valid_from).toBe('2026-03-01T10:00:00.123Z');
    expect(works.last_confirmed_at).toBe('2026-05-01T06:30:00.987Z');
    expect(likes).toMatchObject({ object: null, value: 'tea\nand "coffee"', valid_from: null, episode_ids: [] });
  });

  it('gives a context block the same facts in the same order', async () => {
    const [full, compact] = await withReadClient(api.deps.readPool, async (db) => [await queryFacts(db, scope, everyFact), await queryCompactFacts(db, scope, everyFact)]);
    expect(compact).toEqual(
      full.map((f) => ({
        id: f.id,
        subject: f.subject,
        predicate: f.predicate,
        family: f.family,
        object: f.object,
        value: f.value,
        fact_text: f.fact_text,
        effective_confidence: f.effective_confidence,
        decay_class: f.decay_class,
        freshness: f.freshness,
        last_confirmed_at: f.last_confirmed_at,
        valid_from: f.valid_from,
        episode_ids: f.episode_ids,
      })),
    );
  });
});
