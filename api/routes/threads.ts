import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Deps } from '../../core/deps.js';
import { createThread } from '../../core/threads/create.js';
import { decodeCursor, listThreads } from '../../core/threads/list.js';
import { postMessage } from '../../core/threads/post.js';
import { findThread, getThread } from '../../core/threads/read.js';
import { USER_SENDER } from '../../core/threads/rows.js';
import { resumeSeq, sseComment, sseMessage, sseRetry } from '../../core/threads/sse.js';
import { ThreadStreamHub } from '../../core/threads/streamHub.js';
import { namespaceFor, principalOf } from '../auth.js';
import { HttpError, notFound } from '../errors.js';
import { namespaceSchema, queryBoolean, scopeIdSchema, uuidSchema } from '../schemas/common.js';
import { MAX_CONTENT_BYTES } from './memories.js';

/** Messages the poller reads per thread and round. */
const STREAM_BATCH = 200;
/** A stream whose client reads slower than this much is buffered is closed; the client resumes with Last-Event-ID. */
const MAX_STREAM_BUFFER_BYTES = 1 << 20;
/** How often a stream checks that its server still accepts connections (ends it on shutdown, so close() is not held up). */
const SHUTDOWN_CHECK_MS = 500;
/** What a client is told to wait before reconnecting. */
const RECONNECT_MS = 1_000;
const STREAM_RETRY_AFTER_SECONDS = 5;

const participantSchema = scopeIdSchema;

export const threadParamsSchema = z.object({ id: uuidSchema });

export const threadCreateBodySchema = z.strictObject({
  title: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(500, 'must be at most 500 characters')
    .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters'),
  // Each agent once, in the order given.
  participants: z
    .array(participantSchema)
    .min(1, 'must name at least one participant')
    .max(50, 'must name at most 50 participants')
    .transform((list) => [...new Set(list)]),
  namespace: namespaceSchema.optional(),
});

export const threadMessageBodySchema = z.strictObject({
  /** An agent id among the participants, or `user` (the person, who may write in any thread). */
  sender: participantSchema,
  content: z
    .string()
    .refine((s) => s.trim().length > 0, 'must not be empty')
    .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters')
    .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_CONTENT_BYTES, `must be at most ${MAX_CONTENT_BYTES} bytes`),
  namespace: namespaceSchema.optional(),
});

const seqSchema = z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(0, 'must be at least 0').max(Number.MAX_SAFE_INTEGER);

export const threadQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  after: seqSchema.default(0),
  limit: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be between 1 and 500').max(500, 'must be between 1 and 500').default(100),
});

export const threadListQuerySchema = z
  .strictObject({
    namespace: namespaceSchema.optional(),
    participant: participantSchema.optional(),
    waiting: queryBoolean.optional(),
    limit: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be between 1 and 200').max(200, 'must be between 1 and 200').default(50),
    cursor: z.string().max(500).optional(),
  })
  .refine((q) => !q.waiting || q.participant !== undefined, { path: ['waiting'], message: 'needs participant (the agent the threads wait for)' });

export const threadStreamQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  last_event_id: z.string().max(20).optional(),
});

/** The HTTP server a request arrived on (Node sets `socket.server` on every accepted connection). */
function serverOf(req: Request): Server | undefined {
  return (req.socket as Socket & { server?: Server }).server;
}

/**
 * Threads, where agents (and the person, `user`) coordinate: create, post,
 * read, list, and an SSE stream of new messages fed from PostgreSQL.
 */
export function threadsRoutes(deps: Deps): Router {
  const router = Router();
  // One poller per API process for all of its streams (see ThreadStreamHub).
  const hub = new ThreadStreamHub(deps.readPool, { intervalMs: deps.config.THREAD_POLL_INTERVAL_MS, batchSize: STREAM_BATCH, logger: deps.logger });
  const actorOf = (req: Request) => ({ actor: `key:${principalOf(req).keyId}`, requestId: String(req.id) });

  router.post('/threads', async (req, res) => {
    const body = threadCreateBodySchema.parse(req.body);
    const namespace = namespaceFor(req, body.namespace);
    const thread = await createThread(deps.pool, { id: randomUUID(), namespace, title: body.title, participants: body.participants }, deps.now(), actorOf(req));
    res.status(201).json(thread);
  });

  router.post('/threads/:id/messages', async (req, res) => {
    const { id } = threadParamsSchema.parse(req.params);
    const body = threadMessageBodySchema.parse(req.body);
    const namespace = namespaceFor(req, body.namespace);
    const result = await postMessage(deps.pool, { id: randomUUID(), namespace, threadId: id, sender: body.sender, content: body.content }, deps.now(), actorOf(req));
    if (result.kind === 'not_found') throw notFound('Thread');
    if (result.kind === 'not_participant') {
      throw new HttpError('invalid_input', 'Invalid input', [
        { field: 'sender', message: `must be a participant of the thread (${result.participants.join(', ')}) or "${USER_SENDER}"`, code: 'custom' },
      ]);
    }
    res.status(201).json(result.message);
  });

  router.get('/threads', async (req, res) => {
    const query = threadListQuerySchema.parse(req.query);
    const namespace = namespaceFor(req, query.namespace);
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (cursor === null) throw new HttpError('invalid_input', 'Invalid input', [{ field: 'cursor', message: 'is not a cursor this list handed out', code: 'custom' }]);
    res.json(await listThreads(deps.readPool, { namespace, participant: query.participant, waiting: query.waiting, limit: query.limit, cursor }));
  });

  router.get('/threads/:id', async (req, res) => {
    const { id } = threadParamsSchema.parse(req.params);
    const query = threadQuerySchema.parse(req.query);
    const thread = await getThread(deps.readPool, namespaceFor(req, query.namespace), id, query.after, query.limit);
    if (!thread) throw notFound('Thread');
    res.json(thread);
  });

  router.get('/threads/:id/stream', async (req, res) => {
    const { id } = threadParamsSchema.parse(req.params);
    const query = threadStreamQuerySchema.parse(req.query);
    const namespace = namespaceFor(req, query.namespace);
    const resumeAfter = resumeSeq(req.get('last-event-id'), query.last_event_id);
    if (resumeAfter === null) {
      throw new HttpError('invalid_input', 'Invalid input', [{ field: 'last_event_id', message: 'must be the id (seq) of a message event', code: 'custom' }]);
    }
    if (hub.size >= deps.config.THREAD_STREAM_MAX) {
      res.set('Retry-After', String(STREAM_RETRY_AFTER_SECONDS));
      throw new HttpError('unavailable', 'Too many open thread streams on this server; retry later', { retry_after_seconds: STREAM_RETRY_AFTER_SECONDS });
    }
    const thread = await findThread(deps.readPool, namespace, id);
    if (!thread) throw notFound('Thread');
    // Without Last-Event-ID: messages committed from now on (last_seq is committed with its message).
    openStream(req, res, id, resumeAfter ?? thread.last_seq);
  });

  function openStream(req: Request, res: Response, threadId: string, afterSeq: number): void {
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // nginx and similar proxies would otherwise buffer the stream.
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    res.write(sseRetry(RECONNECT_MS) + sseComment(`stream of thread ${threadId} after seq ${afterSeq}`));
    const server = serverOf(req);
    let ended = false;
    /**
     * `closeConnection`: on shutdown, close the connection once the stream is
     * flushed (as an idle keep-alive connection it would hold close() up for
     * keepAliveTimeout); `drop`: close it at once, discarding what is buffered.
     */
    const end = (how: 'keep' | 'closeConnection' | 'drop' = 'keep') => {
      if (ended) return;
      ended = true;
      unsubscribe();
      clearInterval(heartbeat);
      clearInterval(shutdownWatch);
      if (how === 'drop') {
        res.destroy();
        return;
      }
      res.end(() => {
        if (how === 'closeConnection') res.socket?.destroy();
      });
    };
    const unsubscribe = hub.subscribe(threadId, afterSeq, (messages) => {
      res.write(messages.map(sseMessage).join(''));
      if (res.writableLength > MAX_STREAM_BUFFER_BYTES) end('drop');
    });
    const heartbeat = setInterval(() => res.write(sseComment('heartbeat')), deps.config.THREAD_HEARTBEAT_MS);
    // A server that stopped listening is shutting down: its open streams would keep close() waiting forever.
    const shutdownWatch = setInterval(() => {
      if (server && !server.listening) end('closeConnection');
    }, SHUTDOWN_CHECK_MS);
    heartbeat.unref();
    shutdownWatch.unref();
    res.on('close', () => end());
    // The client may have gone while the thread was looked up: 'close' has then fired already.
    if (req.socket.destroyed) end();
  }

  return router;
}
