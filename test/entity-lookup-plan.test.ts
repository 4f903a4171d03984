import pg from 'pg';
import { lookupProseEntities } from '../activities/entityLookup.js';
import { HASH_EMBEDDING_MODEL, SCHEMA_EMBEDDING_DIM } from '../core/config/config.js';
import { toVectorSql } from '../core/db/pool.js';
import { nameKey } from '../core/domain/canonical.js';
import { HashingEmbedder } from '../core/embedding/hashing.js';
import type { EntityCandidate } from '../core/extraction/types.js';
import { useMigratedPool } from './support/db.js';
import { nodesOf, type PlanNode } from './support/plans.js';

/**
 * Entity resolution's lookup (activities/entityLookup.ts) compares each
 * candidate's name vector with every entity of the scope when it sorts by
 * distance. The candidate's vector must be parsed once: a cast from text in
 * the sort key parsed its 384 numbers again for every entity compared (45 ms
 * for three names against 600 entities on a server, 156 ms on PGlite).
 */
const NS = 'lookup';
const names = (n: number) => Array.from({ length: n }, (_, i) => `Person ${i} Example`);
const embedder = new HashingEmbedder(SCHEMA_EMBEDDING_DIM, HASH_EMBEDDING_MODEL);

describe('entity lookup', () => {
  const pool = useMigratedPool('mnemo_lookup', async (seeding) => {
    await seeding.query(`INSERT INTO namespace (id) VALUES ($1)`, [NS]);
    const all = names(60);
    const vectors = await embedder.embed(all);
    await seeding.query(
      `INSERT INTO entity (id, namespace, scope_user, type, name, name_key, aliases, name_embedding, first_seen_at, last_seen_at)
       SELECT gen_random_uuid(), $1, 'u1', 'person', n.name, n.key, '{}', n.vec::vector, now(), now()
         FROM unnest($2::text[], $3::text[], $4::text[]) AS n(name, key, vec)`,
      [NS, all, all.map(nameKey), vectors.map(toVectorSql)],
    );
  });

  const candidates: EntityCandidate[] = [
    { name: 'Person 7 Example', type: 'person', aliases: [] },
    { name: 'Persn 12 Exampel', type: 'person', aliases: [] },
  ];

  it('finds exact and nearest names per candidate', async () => {
    const rows = await lookupProseEntities(pool(), { namespace: NS, scopeUser: 'u1' }, candidates, await embedder.embed(candidates.map((c) => c.name)));
    expect(rows.filter((r) => r.idx === 0 && r.via === 'exact').map((r) => r.name)).toEqual(['Person 7 Example']);
    expect(rows.filter((r) => r.idx === 0 && r.via === 'vector')[0]).toMatchObject({ name: 'Person 7 Example' });
    expect(rows.filter((r) => r.idx === 1 && r.via === 'vector')).toHaveLength(3);
    expect(rows.some((r) => r.idx === 1 && r.via === 'exact')).toBe(false);
  });

  it("parses each candidate's vector once, not once per entity compared", async () => {
    // The statement as the activity sends it, explained with its own values.
    let sent: { text: string; values: unknown[] } | undefined;
    const recording = {
      query: async (text: string, values: unknown[]) => {
        sent = { text, values };
        return pool().query(text, values);
      },
    } as unknown as pg.Pool;
    await lookupProseEntities(recording, { namespace: NS, scopeUser: 'u1' }, candidates, await embedder.embed(candidates.map((c) => c.name)));
    const { rows } = await pool().query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON, VERBOSE) ${sent!.text}`, sent!.values);
    const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    const distanceNodes = nodes.filter((node) => JSON.stringify(node).includes('<=>'));
    expect(distanceNodes.length).toBeGreaterThan(0);
    const perRowCasts = nodes.filter((node) => {
      const { Plans: _children, ...own } = node;
      return /<=>[^"]*::vector/.test(JSON.stringify(own));
    });
    expect(perRowCasts.map((node) => node['Node Type'])).toEqual([]);
  });
});
