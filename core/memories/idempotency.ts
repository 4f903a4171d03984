import { createHash } from 'node:crypto';
import type { Queryable } from '../db/pool.js';

/** How long a key answers with its original result. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** A claim still unanswered after this long belongs to a request that died mid-write: another may take it over. */
export const ABANDONED_CLAIM_MS = 60_000;
/** How long a duplicate waits for the first request's answer before giving up (IdempotencyInProgress). */
const WAIT_FOR_WINNER_MS = 15_000;
const POLL_MS = 20;
/** Expired keys are purged at most this often per process (lazily, on a claim). */
const PURGE_EVERY_MS = 60_000;

export interface IdempotentAnswer {
  status: number;
  body: unknown;
  /** true when this is the stored answer of an earlier request. */
  replayed: boolean;
}

/** The same Idempotency-Key was used with another request body (or on another route). */
export class IdempotencyMismatch extends Error {
  constructor(readonly idempotencyKey: string) {
    super('This Idempotency-Key was already used with a different request');
    this.name = 'IdempotencyMismatch';
  }
}

/** The first request with this key is still writing and did not answer in time. */
export class IdempotencyInProgress extends Error {
  constructor(readonly idempotencyKey: string) {
    super('A request with this Idempotency-Key is still in progress; retry shortly');
    this.name = 'IdempotencyInProgress';
  }
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` hash alike. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 of the route and the body in canonical JSON (key order does not matter). */
export function requestHash(route: string, body: unknown): string {
  return createHash('sha256').update(`${route}\n${canonicalJson(body)}`).digest('hex');
}

interface StoredKey {
  request_hash: string;
  response_status: number | null;
  response_body: unknown;
  created_at: Date;
}

/**
 * Idempotency keys of memory writes. The first request claims the key with an
 * INSERT … ON CONFLICT DO NOTHING (one statement, so also safe on PGlite's
 * single session), performs its write, then records its answer; concurrent
 * duplicates poll the row until the answer is there. A failed write releases
 * its claim, so nothing is stored for a request that stored nothing.
 */
export class IdempotencyStore {
  private lastPurge = 0;

  constructor(
    private readonly db: Queryable,
    private readonly now: () => Date,
  ) {}

  /**
   * Runs `write` once per (keyId, idempotencyKey) within 24 h and answers its
   * result to every request carrying the same key and request hash.
   */
  async run(
    scope: { keyId: string; idempotencyKey: string; requestHash: string },
    write: () => Promise<{ status: number; body: unknown }>,
  ): Promise<IdempotentAnswer> {
    await this.purgeExpired();
    const deadline = Date.now() + WAIT_FOR_WINNER_MS;
    for (;;) {
      if (await this.claim(scope)) {
        let answer: { status: number; body: unknown };
        try {
          answer = await write();
        } catch (err) {
          await this.release(scope);
          throw err;
        }
        await this.db.query(
          `UPDATE idempotency_key SET response_status = $3, response_body = $4::jsonb
            WHERE key_id = $1 AND idempotency_key = $2`,
          [scope.keyId, scope.idempotencyKey, answer.status, JSON.stringify(answer.body)],
        );
        return { ...answer, replayed: false };
      }
      const stored = await this.find(scope);
      // Gone (the first write failed and released it) or expired: loop and claim it.
      if (!stored && Date.now() > deadline) throw new IdempotencyInProgress(scope.idempotencyKey);
      if (stored) {
        if (stored.request_hash !== scope.requestHash) throw new IdempotencyMismatch(scope.idempotencyKey);
        if (stored.response_status !== null) return { status: stored.response_status, body: stored.response_body, replayed: true };
        if (Date.now() > deadline) throw new IdempotencyInProgress(scope.idempotencyKey);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
  }

  /** true when this request owns the key: a new row, or one that expired or was abandoned mid-write. */
  private async claim(scope: { keyId: string; idempotencyKey: string; requestHash: string }): Promise<boolean> {
    const now = this.now();
    const { rowCount } = await this.db.query(
      `INSERT INTO idempotency_key (key_id, idempotency_key, request_hash, created_at)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (key_id, idempotency_key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, response_status = NULL, response_body = NULL, created_at = EXCLUDED.created_at
        WHERE idempotency_key.created_at < $5
           OR (idempotency_key.response_status IS NULL AND idempotency_key.created_at < $6)`,
      [
        scope.keyId,
        scope.idempotencyKey,
        scope.requestHash,
        now.toISOString(),
        new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString(),
        new Date(now.getTime() - ABANDONED_CLAIM_MS).toISOString(),
      ],
    );
    return rowCount === 1;
  }

  private async find(scope: { keyId: string; idempotencyKey: string }): Promise<StoredKey | null> {
    const { rows } = await this.db.query<StoredKey>(
      `SELECT request_hash, response_status, response_body, created_at FROM idempotency_key
        WHERE key_id = $1 AND idempotency_key = $2 AND created_at >= $3`,
      [scope.keyId, scope.idempotencyKey, new Date(this.now().getTime() - IDEMPOTENCY_TTL_MS).toISOString()],
    );
    return rows[0] ?? null;
  }

  private async release(scope: { keyId: string; idempotencyKey: string }): Promise<void> {
    await this.db.query('DELETE FROM idempotency_key WHERE key_id = $1 AND idempotency_key = $2 AND response_status IS NULL', [
      scope.keyId,
      scope.idempotencyKey,
    ]);
  }

  /** Deletes keys older than 24 h, at most once a minute per process (an indexed range delete: cheap). */
  async purgeExpired(): Promise<number> {
    const now = this.now().getTime();
    if (now - this.lastPurge < PURGE_EVERY_MS) return 0;
    this.lastPurge = now;
    const { rowCount } = await this.db.query('DELETE FROM idempotency_key WHERE created_at < $1', [
      new Date(now - IDEMPOTENCY_TTL_MS).toISOString(),
    ]);
    return rowCount ?? 0;
  }
}
