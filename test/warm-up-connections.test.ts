import type pg from 'pg';
import { warmUpReadConnections } from '../api/warmUpConnections.js';
import { loadConfig } from '../core/config/config.js';
import { createPool } from '../core/db/pool.js';
import type { Logger } from '../core/logger.js';
import { embedder, insertEntity, insertEpisode, insertFact } from './support/graphFixtures.js';
import { createTestDatabase, type TestDatabase } from './support/db.js';
import { EMBEDDED_DATABASE } from './support/env.js';

function recordingLogger(): { logger: Logger; warnings: unknown[]; debug: Array<Record<string, unknown>> } {
  const warnings: unknown[] = [];
  const debug: Array<Record<string, unknown>> = [];
  return {
    logger: { debug: (fields: Record<string, unknown>) => void debug.push(fields), warn: (fields: { err: unknown }) => void warnings.push(fields.err) } as unknown as Logger,
    warnings,
    debug,
  };
}

/** The read statements each of `count` connections has prepared, by connection (held all at once, so each is its own). */
async function statementsByConnection(pool: pg.Pool, count: number): Promise<number[]> {
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()));
  try {
    if (EMBEDDED_DATABASE) {
      // One PGlite session holds every connection's statements, each name prefixed with its connection's id
      // (core/embedded/sessionState.ts): count them per prefix.
      const { rows } = await clients[0].query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name ~ '^c[0-9]+_mnemo_read_' GROUP BY substring(name from '^c([0-9]+)_') ORDER BY 1`,
      );
      return rows.map((r) => r.n);
    }
    const counts = await Promise.all(
      clients.map(async (c) => (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'mnemo_read_%'`)).rows[0].n),
    );
    return counts.sort((a, b) => a - b);
  } finally {
    clients.forEach((c) => c.release());
  }
}

describe('read connections warmed before the API listens (READ_WARM_CONNECTIONS)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    const seed = createPool(db.url, 2);
    try {
      const episodeId = await insertEpisode(seed, { namespace: 'warm', userId: 'ana', content: 'Ana moved to Lisbon and works at Acme', occurredAt: '2026-11-01T10:00:00Z' });
      const ana = await insertEntity(seed, { namespace: 'warm', scopeUser: 'ana', name: 'Ana', episodeIds: [episodeId] });
      await insertFact(seed, { namespace: 'warm', scopeUser: 'ana', subjectId: ana, predicate: 'lives_in', value: 'Lisbon', factText: 'Ana lives in Lisbon', episodeIds: [episodeId] });
    } finally {
      await seed.end();
    }
  });
  afterAll(async () => {
    await db.drop();
  });

  const depsFor = (readPool: pg.Pool, env: Record<string, string>) => ({
    readPool,
    embedder,
    config: loadConfig({ DATABASE_URL: db.url, ...env }),
    now: () => new Date('2026-12-01T00:00:00Z'),
  });

  it('opens that many connections and runs every question shape on each: each has the read statements planned', async () => {
    const readPool = createPool(db.url, 20, { readPath: true });
    const { logger, warnings, debug } = recordingLogger();
    try {
      await warmUpReadConnections(depsFor(readPool, { READ_WARM_CONNECTIONS: '3' }), logger);
      expect(warnings).toEqual([]);
      expect(debug).toEqual([expect.objectContaining({ connections: 3 })]);
      expect(readPool.totalCount).toBe(3);
      expect(readPool.idleCount).toBe(3);
      const counts = await statementsByConnection(readPool, 3);
      expect(counts).toHaveLength(3);
      // Context and search, per user and namespace-wide, on the stored episode's scope: 15 statements today; a scope
      // with nothing stored stops early (9), so this fails if the warm-up stops asking about a real scope.
      expect(counts[0]).toBeGreaterThanOrEqual(12);
      // The same on each, but for the one that also picked the sample question.
      expect(counts[2] - counts[0]).toBeLessThanOrEqual(1);
    } finally {
      await readPool.end();
    }
  });

  it('opens no more than the read gate lets run at once, and none at 0', async () => {
    const gated = createPool(db.url, 20, { readPath: true });
    const none = createPool(db.url, 20, { readPath: true });
    const { logger } = recordingLogger();
    try {
      await warmUpReadConnections(depsFor(gated, { READ_WARM_CONNECTIONS: '8', READ_CONCURRENCY: '2' }), logger);
      expect(gated.totalCount).toBe(2);
      await warmUpReadConnections(depsFor(none, { READ_WARM_CONNECTIONS: '0' }), logger);
      expect(none.totalCount).toBe(0);
    } finally {
      await Promise.all([gated.end(), none.end()]);
    }
  });

  it('logs a database it cannot reach and lets the API start anyway', async () => {
    // A port nothing listens on: connecting fails at once.
    const unreachable = createPool('postgresql://postgres@127.0.0.1:9/none', 2, { readPath: true });
    const { logger, warnings } = recordingLogger();
    try {
      await expect(warmUpReadConnections(depsFor(unreachable, {}), logger)).resolves.toBeUndefined();
      expect(warnings).toHaveLength(1);
      expect((warnings[0] as Error).message).toMatch(/ECONNREFUSED|connect/);
    } finally {
      await unreachable.end();
    }
  });
});
