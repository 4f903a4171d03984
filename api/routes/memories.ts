import { Router, type Request } from 'express';
import { z } from 'zod';
import { writeAudit } from '../../core/audit/auditLog.js';
import { hasRole } from '../../core/auth/apiKeys.js';
import type { Deps } from '../../core/deps.js';
import { EPISODE_STATUSES } from '../../core/domain/types.js';
import { episodeWorkflowId } from '../../core/ingest/contracts.js';
import { decodeCursor, getEpisode, listEpisodes, listStageRuns } from '../../core/memories/read.js';
import { episodeProducts } from '../../core/memories/expand.js';
import type { MemoryWriter, NewMemory } from '../../core/memories/write.js';
import { TaskWriteLimitExceeded, UnknownTask } from '../../core/tasks/writeLimit.js';
import { namespaceFor, principalOf } from '../auth.js';
import { HttpError, notFound } from '../errors.js';
import { contentTypeSchema } from '../../core/sources/contentType.js';
import { sourceContentIssues, storedContent } from '../../core/sources/contentSchemas.js';
import { withSourceFields } from '../../core/sources/prepare.js';
import { answerIdempotently } from '../idempotency.js';
import { IdempotencyStore } from '../../core/memories/idempotency.js';
import { isoInstantSchema, namespaceSchema, queryBoolean, scopeIdSchema, uuidSchema } from '../schemas/common.js';
import { ianaTimeZoneSchema } from './namespaces.js';

export const MAX_CONTENT_BYTES = 100_000;
export const MAX_BATCH = 100;

/** Prose content (content_type text): what PATCH /v1/memories/:id accepts too. */
export const memoryTextContentSchema = z
  .string()
  .refine((s) => s.trim().length > 0, 'must not be empty')
  .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters')
  .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_CONTENT_BYTES, `must be at most ${MAX_CONTENT_BYTES} bytes`);

export const memoryBodySchema = z.strictObject({
  /** Text; for calendar_event and json also an object. Checked against content_type below (core/sources/contentSchemas.ts). */
  content: z.union([z.string(), z.record(z.string(), z.unknown())], { error: 'must be a string (or an object for calendar_event and json)' }),
  /** What the content is: prose (default), a raw RFC 822 email, a calendar event (.ics or object), typed triples. */
  content_type: contentTypeSchema.optional(),
  namespace: namespaceSchema.optional(),
  user_id: scopeIdSchema.optional(),
  agent_id: scopeIdSchema.optional(),
  run_id: scopeIdSchema.optional(),
  speaker: z.string().trim().min(1).max(200).optional(),
  occurred_at: isoInstantSchema.optional(),
  source: z.string().trim().min(1).max(500).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  t_valid_override: isoInstantSchema.optional(),
  skip_extraction: z.boolean().optional(),
  /** A persistent task of the same namespace; its bursts may write at most 50 memories each. */
  task_id: uuidSchema.optional(),
  /** The writer's IANA time zone ("Europe/Oslo"): relative dates in the content resolve in it. */
  timezone: ianaTimeZoneSchema.optional(),
}).superRefine((body, ctx) => {
  // Discriminated on content_type: each type's shape, its issues under `content`.
  for (const issue of sourceContentIssues(body.content_type ?? 'text', body.content)) ctx.addIssue({ code: 'custom', message: issue.message, path: ['content', ...issue.path] });
});
type MemoryBody = z.infer<typeof memoryBodySchema>;

export const batchSchema = z.strictObject({
  memories: z.array(memoryBodySchema).min(1, 'must hold at least one memory').max(MAX_BATCH, `at most ${MAX_BATCH} memories per batch`),
});

/** `?expand=facts`: the facts and entities the episode produced, as full objects (not only their ids). */
export const memoryExpandSchema = z.object({ expand: z.enum(['facts'], { error: 'one of: facts' }).optional() });

export const listQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  user_id: scopeIdSchema.optional(),
  agent_id: scopeIdSchema.optional(),
  run_id: scopeIdSchema.optional(),
  status: z.enum(EPISODE_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(500).optional(),
  include_forgotten: queryBoolean.optional(),
});

function toNewMemory(req: Request, body: MemoryBody): NewMemory {
  return {
    content: storedContent(body.content),
    contentType: body.content_type,
    namespace: namespaceFor(req, body.namespace),
    userId: body.user_id,
    agentId: body.agent_id,
    runId: body.run_id,
    speaker: body.speaker,
    occurredAt: body.occurred_at,
    source: body.source,
    metadata: body.metadata,
    tValidOverride: body.t_valid_override,
    skipExtraction: body.skip_extraction,
    taskId: body.task_id,
    timezone: body.timezone,
  };
}

/** Stores the memories as the request's key; a task write over its limit is a 429, an unknown task a 400. */
async function acceptAs(req: Request, writer: MemoryWriter, memories: NewMemory[], batch: boolean) {
  try {
    return await writer.accept(memories, { actor: `key:${principalOf(req).keyId}`, requestId: String(req.id) });
  } catch (err) {
    if (err instanceof TaskWriteLimitExceeded) {
      throw new HttpError('task_write_limit', err.message, { task_id: err.taskId, burst: err.burst, writes: err.writes, limit: err.limit });
    }
    if (err instanceof UnknownTask) {
      const field = batch ? `memories.${memories.findIndex((m) => m.taskId === err.taskId)}.task_id` : 'task_id';
      throw new HttpError('invalid_input', 'Invalid input', [{ field, message: err.message }]);
    }
    throw err;
  }
}

export function memoryRoutes(deps: Deps, writer: MemoryWriter): Router {
  const router = Router();
  /** `Idempotency-Key` on the two write routes (api/idempotency.ts). */
  const idempotency = new IdempotencyStore(deps.pool, deps.now);

  /** Loads an episode the caller may see; another namespace's episode is a 404, not a 403 (no leak). */
  async function visibleEpisode(req: Request) {
    const id = uuidSchema.safeParse(req.params.id);
    if (!id.success) throw notFound('Memory');
    const episode = await getEpisode(deps, id.data);
    const principal = principalOf(req);
    if (!episode || (principal.namespace !== null && principal.namespace !== episode.namespace)) throw notFound('Memory');
    if (episode.forgotten_at && !hasRole(principal, 'operator')) throw notFound('Memory');
    return episode;
  }

  router.post('/memories', async (req, res) => {
    const body = memoryBodySchema.parse(req.body);
    await answerIdempotently(req, res, idempotency, async () => {
      const [accepted] = await acceptAs(req, writer, [await withSourceFields(toNewMemory(req, body))], false);
      return { status: 202, body: accepted };
    });
  });

  router.post('/memories/batch', async (req, res) => {
    const body = batchSchema.parse(req.body);
    const memories = await Promise.all(body.memories.map((m) => withSourceFields(toNewMemory(req, m))));
    await answerIdempotently(req, res, idempotency, async () => ({ status: 202, body: { memories: await acceptAs(req, writer, memories, true) } }));
  });

  router.get('/memories', async (req, res) => {
    const query = listQuerySchema.parse(req.query);
    if (query.include_forgotten && !hasRole(principalOf(req), 'operator')) {
      throw new HttpError('forbidden', 'include_forgotten requires an operator key');
    }
    const after = query.cursor ? decodeCursor(query.cursor) : null;
    if (query.cursor && !after) throw new HttpError('invalid_input', 'Invalid input', [{ field: 'cursor', message: 'unknown cursor' }]);
    const page = await listEpisodes(
      deps,
      {
        namespace: namespaceFor(req, query.namespace),
        userId: query.user_id,
        agentId: query.agent_id,
        runId: query.run_id,
        status: query.status,
        limit: query.limit,
        includeForgotten: query.include_forgotten,
      },
      after,
    );
    res.json(page);
  });

  router.get('/memories/:id', async (req, res) => {
    const { expand } = memoryExpandSchema.parse(req.query);
    const episode = await visibleEpisode(req);
    if (!expand) return void res.json(episode);
    const products = await episodeProducts(deps.pool, episode, deps.now(), hasRole(principalOf(req), 'operator'));
    res.json({ ...episode, ...products });
  });

  router.get('/memories/:id/stages', async (req, res) => {
    const episode = await visibleEpisode(req);
    res.json({ episode_id: episode.id, status: episode.status, stages: await listStageRuns(deps, episode.id) });
  });

  router.post('/memories/:id/retry', async (req, res) => {
    const episode = await visibleEpisode(req);
    const { rowCount } = await deps.pool.query(
      `UPDATE episode SET status = 'pending', updated_at = now() WHERE id = $1 AND status = 'failed'`,
      [episode.id],
    );
    if (!rowCount) throw new HttpError('conflict', `Memory is ${episode.status}; only failed memories can be retried`);
    await writeAudit(
      deps.pool,
      { namespace: episode.namespace, actor: `key:${principalOf(req).keyId}`, requestId: String(req.id), episodeId: episode.id },
      [{ action: 'episode.retry', targetType: 'episode', targetId: episode.id }],
    );
    const started = await writer.retryQuietly(episode.id);
    res.status(202).json({ id: episode.id, workflow_id: episodeWorkflowId(episode.id), status: 'pending', started });
  });

  return router;
}
