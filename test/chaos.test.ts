import { describe, expect, it } from '@jest/globals';
import { toHttpError } from '../api/errors.js';
import { runChaos, SHORT_CHAOS } from '../bench/lib/chaosRun.js';
import { findPostgresBinDir, startPrivatePostgres } from '../bench/lib/privatePostgres.js';
import { createPool } from '../core/db/pool.js';
import { isDatabaseUnavailable } from '../core/db/unavailable.js';
import { findTemporalCli } from '../core/embedded/temporalCli.js';

describe('a database that went away answers 503 with Retry-After, not 500', () => {
  it.each([
    ['a restart (admin shutdown)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a cut connection', new Error('Connection terminated unexpectedly')],
    ['the server starting up', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
  ])('%s', (_name, err) => {
    const httpError = toHttpError(err);
    expect(httpError.status).toBe(503);
    expect(httpError.details).toEqual({ retry_after_seconds: expect.any(Number) });
  });

  it('a query error is still a 500', () => {
    expect(toHttpError(Object.assign(new Error('syntax error'), { code: '42601' })).status).toBe(500);
  });
});

describe('a PostgreSQL restart under a checked-out connection', () => {
  // pg emits 'error' on a checked-out client the server terminated between two statements; unheard, that crashed the API.
  it('fails only that connection\'s next query (503-worthy), and the pool serves again', async () => {
    const cluster = await startPrivatePostgres();
    const pool = createPool(cluster.url('postgres'), 2);
    try {
      const client = await pool.connect();
      await client.query('SELECT 1');
      await cluster.restart();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const err: unknown = await client.query('SELECT 1').then(() => null, (e: unknown) => e);
      expect(isDatabaseUnavailable(err)).toBe(true);
      client.release();
      expect((await pool.query<{ n: number }>('SELECT 42 AS n')).rows[0].n).toBe(42);
    } finally {
      await pool.end();
      await cluster.stop();
    }
  }, 60_000);
});

describe('chaos under load (short form)', () => {
  // Its own PostgreSQL cluster and Temporal server: both are restarted, so nothing shared is touched.
  it('loses, wedges and duplicates nothing while the worker, the API, Temporal and PostgreSQL fail in turn', async () => {
    // A missing binary fails the test with the reason, never skips it.
    findPostgresBinDir();
    findTemporalCli();
    const lines: string[] = [];
    const result = await runChaos({ ...SHORT_CHAOS, log: (line) => lines.push(line) });
    process.stdout.write(`chaos (short): ${JSON.stringify({ ...result, detail: undefined })} phases_s: ${JSON.stringify(result.detail.phases_s)}\n`);
    const context = JSON.stringify({ result, log: lines }, null, 2);
    expect({ lost: result.lost, stuck: result.stuck, duplicates: result.duplicates, faults: result.faults_injected }).toEqual({ lost: 0, stuck: 0, duplicates: 0, faults: 4 });
    expect(result.acknowledged).toBeGreaterThan(SHORT_CHAOS.writesPerSecond * SHORT_CHAOS.seconds * 0.5);
    // Writes that could not be stored were refused properly: 503 with Retry-After, never another 5xx.
    expect({ withoutRetryAfter: result.detail.writes.refused_without_retry_after, other5xx: result.detail.writes.answers_5xx_not_503 }).toEqual({ withoutRetryAfter: 0, other5xx: 0 });
    expect(result.detail.audit_missing).toBe(0);
    // Every logical write ended acknowledged, refused or unanswered: none was turned down as invalid along the way.
    expect(result.detail.writes.errors).toBe(0);
    // Faults are survived, not crashed through: only the two SIGKILLs stopped a process.
    expect(result.detail.unexpected_exits).toEqual({ api: 0, worker: 0 });
    if (result.lost || result.stuck || result.duplicates) throw new Error(context);
  }, 360_000);
});
