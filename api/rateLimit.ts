import type { RequestHandler } from 'express';
import { hasRole } from '../core/auth/apiKeys.js';
import type { Deps } from '../core/deps.js';
import { principalOf } from './auth.js';
import { HttpError } from './errors.js';

/** Buckets kept before idle (full) ones are dropped: memory stays bounded whatever the number of keys. */
const MAX_BUCKETS = 10_000;

interface Bucket {
  tokens: number;
  /** Monotonic milliseconds of the last refill. */
  at: number;
}

/**
 * Token buckets, one per API key: `burst` requests at once, refilled at
 * `perSecond`. In-process: each API process enforces the limit on its own, so
 * N processes behind a load balancer allow up to N × the configured rate.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Takes one token for `key`: 0 when allowed, else the seconds until one is available. */
  take(key: string): number {
    const now = this.clock();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= MAX_BUCKETS) this.dropFull(now);
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Forgets keys whose bucket has refilled: a new bucket starts full, so nothing changes for them. */
  private dropFull(now: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(key);
    }
    // Every bucket still in use: drop the oldest (insertion order) rather than grow without bound.
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value as string);
  }
}

/**
 * Per-key rate limit for `/v1` (mounted after authentication): past
 * RATE_LIMIT_PER_SECOND (bursts of RATE_LIMIT_BURST) a key gets 429 with
 * Retry-After. Off when RATE_LIMIT_PER_SECOND is 0; admin keys are exempt
 * unless RATE_LIMIT_ADMIN is true.
 */
export function rateLimit(deps: Pick<Deps, 'config'>, clock?: () => number): RequestHandler {
  const { RATE_LIMIT_PER_SECOND: perSecond, RATE_LIMIT_BURST: burst, RATE_LIMIT_ADMIN: limitAdmins } = deps.config;
  if (perSecond <= 0) return (_req, _res, next) => next();
  const buckets = new TokenBuckets(perSecond, burst ?? Math.max(1, Math.ceil(perSecond)), clock);
  return (req, res, next) => {
    const principal = principalOf(req);
    if (!limitAdmins && hasRole(principal, 'admin')) return next();
    const waitSeconds = buckets.take(principal.keyId);
    if (waitSeconds === 0) return next();
    res.set('Retry-After', String(waitSeconds));
    next(new HttpError('rate_limited', `Rate limit of ${perSecond} requests per second exceeded; retry after ${waitSeconds} s`, { retry_after_seconds: waitSeconds }));
  };
}
