import type { Request, RequestHandler } from 'express';
import { readConcurrency } from '../core/config/config.js';
import type { Deps } from '../core/deps.js';
import { ExtractionBacklog } from '../core/memories/backlog.js';
import { AdmissionGate } from './admissionGate.js';
import { EventLoopLag } from './eventLoopLag.js';
import { HttpError } from './errors.js';

/** Seconds a refused read is told to wait: a read's turn comes within milliseconds once the burst passes. */
export const READ_RETRY_AFTER_SECONDS = 1;
/** Seconds a refused write is told to wait: the extraction backlog drains over seconds, not milliseconds. */
export const WRITE_RETRY_AFTER_SECONDS = 5;

/** Requests that only read (relative to `/v1`): every GET, and the two POST read endpoints. */
function isRead(req: Request): boolean {
  return (req.method === 'GET' && !isThreadStream(req)) || (req.method === 'POST' && (req.path === '/search' || req.path === '/context'));
}

/** A thread's SSE stream stays open for minutes: it would hold a read's turn all along (THREAD_STREAM_MAX bounds streams instead). */
function isThreadStream(req: Request): boolean {
  return /^\/threads\/[^/]+\/stream$/.test(req.path);
}

/** Episodes a write request would add (POST /memories, /memories/batch); 0 for anything else. */
function episodesWritten(req: Request): number {
  if (req.method !== 'POST') return 0;
  if (req.path === '/memories') return 1;
  if (req.path === '/memories/batch') {
    const memories: unknown = (req.body as { memories?: unknown } | undefined)?.memories;
    return Array.isArray(memories) ? memories.length : 1;
  }
  return 0;
}

function refuse(res: Parameters<RequestHandler>[1], seconds: number, message: string): HttpError {
  res.set('Retry-After', String(seconds));
  return new HttpError('unavailable', message, { retry_after_seconds: seconds });
}

/**
 * Graceful overload for `/v1` (mounted after authentication): a read that
 * cannot start within READ_QUEUE_TIMEOUT_MS and a write past
 * MAX_PENDING_EPISODES answer 503 with Retry-After; a refused write stores
 * nothing, so everything acknowledged is still extracted.
 */
export function overloadGuard(deps: Pick<Deps, 'pool' | 'config' | 'metrics'>): RequestHandler & { reads: AdmissionGate; backlog: ExtractionBacklog } {
  const reads = new AdmissionGate(readConcurrency(deps.config), deps.config.READ_QUEUE_TIMEOUT_MS);
  const backlog = new ExtractionBacklog(deps.pool, deps.config.MAX_PENDING_EPISODES);
  deps.metrics.watchReadGate(reads);
  deps.metrics.watchBacklog(backlog);

  const guard: RequestHandler = (req, res, next) => {
    if (isRead(req)) {
      void reads.enter().then((release) => {
        if (!release) {
          deps.metrics.refused('read');
          return next(refuse(res, READ_RETRY_AFTER_SECONDS, 'Too many reads at once; retry shortly'));
        }
        // A client that left while its read waited in line closed the response before its turn came: a 'close'
        // listener added now would never run and the turn would be kept for good (once the gate's capacity had
        // leaked so, every later read was refused). Nobody to answer: the turn passes on at once.
        if (res.closed) return release();
        res.once('finish', release);
        res.once('close', release);
        next();
      });
      return;
    }
    const episodes = episodesWritten(req);
    if (episodes === 0) return next();
    backlog.admit(episodes).then(
      (admitted) => {
        if (!admitted) {
          deps.metrics.refused('write');
          return next(refuse(res, WRITE_RETRY_AFTER_SECONDS, 'Extraction is behind; nothing was stored, retry later'));
        }
        next();
      },
      (err: unknown) => next(err),
    );
  };
  return Object.assign(guard, { reads, backlog });
}

/**
 * Mounted first on `/v1`, before the body is parsed: while this process's
 * event loop runs more than READ_MAX_EVENT_LOOP_LAG_MS late, reads answer 503
 * with Retry-After at once. A refusal costs a fraction of a millisecond where
 * an answered read costs several, so the process catches up and the reads it
 * does take start promptly. Writes pass: they are cheap, and acknowledging
 * them is what the write path promises (MAX_PENDING_EPISODES bounds them).
 */
export function shedReadsWhileLagging(deps: Pick<Deps, 'config' | 'metrics'>, lag?: { readonly currentMs: number }): RequestHandler {
  const limitMs = deps.config.READ_MAX_EVENT_LOOP_LAG_MS;
  if (limitMs === 0) return (_req, _res, next) => next();
  const monitor = lag ?? new EventLoopLag();
  return (req, res, next) => {
    if (monitor.currentMs <= limitMs || !isRead(req)) return next();
    deps.metrics.refused('read');
    next(refuse(res, READ_RETRY_AFTER_SECONDS, 'The server is busy; retry shortly'));
  };
}
