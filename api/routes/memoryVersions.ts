import { Router, type Request } from 'express';
import { z } from 'zod';
import { hasRole } from '../../core/auth/apiKeys.js';
import type { Deps } from '../../core/deps.js';
import { getEpisode } from '../../core/memories/read.js';
import { listVersions, MemoryUpdateConflict, updateMemory } from '../../core/memories/update.js';
import { principalOf } from '../auth.js';
import { HttpError, notFound } from '../errors.js';
import { uuidSchema } from '../schemas/common.js';
import { memoryBodySchema, memoryTextContentSchema } from './memories.js';

/** `PATCH /v1/memories/:id`: new content and/or metadata (metadata is replaced as a whole). */
export const memoryPatchSchema = z
  .strictObject({ content: memoryTextContentSchema.optional(), metadata: memoryBodySchema.shape.metadata })
  .refine((b) => b.content !== undefined || b.metadata !== undefined, { message: 'give content, metadata or both' });

export const memoryUpdateResponseSchema = z.object({
  id: z.string(),
  version: z.number().int().describe('the version now current'),
  changed: z.boolean().describe('false when the patch equals the current version (no new version)'),
  content_changed: z.boolean(),
  status: z.string(),
  workflow_id: z.string().describe('the extraction run of the current content'),
  started: z.boolean(),
});

export const memoryHistoryResponseSchema = z.object({
  episode_id: z.string(),
  current_version: z.number().int(),
  versions: z.array(
    z.object({
      version: z.number().int(),
      current: z.boolean(),
      content: z.string(),
      metadata: z.record(z.string(), z.unknown()),
      recorded_at: z.string(),
      replaced_at: z.string().nullable(),
      replaced_by: z.object({ actor: z.string(), request_id: z.string().nullable() }).nullable(),
      workflow_id: z.string().nullable(),
      supported_fact_ids: z.array(z.string()),
      settled: z.boolean().nullable().describe('the facts only this content supported were expired after the replacing content was extracted'),
      facts_expired: z.number().int(),
    }),
  ),
});

/** Updating a memory and its version history (core/memories/update.ts). */
export function memoryVersionRoutes(deps: Deps): Router {
  const router = Router();

  /** The episode id when the caller may see it; another namespace's (or a forgotten one, for non-operators) is a 404. */
  async function visibleId(req: Request): Promise<string> {
    const id = uuidSchema.safeParse(req.params.id);
    if (!id.success) throw notFound('Memory');
    const episode = await getEpisode(deps, id.data);
    const principal = principalOf(req);
    if (!episode || (principal.namespace !== null && principal.namespace !== episode.namespace)) throw notFound('Memory');
    if (episode.forgotten_at && !hasRole(principal, 'operator')) throw notFound('Memory');
    return episode.id;
  }

  router.patch('/memories/:id', async (req, res) => {
    const id = await visibleId(req);
    const body = memoryPatchSchema.parse(req.body);
    const principal = principalOf(req);
    const who = { actor: `key:${principal.keyId}`, requestId: String(req.id), namespace: principal.namespace };
    try {
      const result = await updateMemory(deps, id, body, who, deps.now());
      if (!result) throw notFound('Memory');
      res.status(result.content_changed ? 202 : 200).json(result);
    } catch (err) {
      if (err instanceof MemoryUpdateConflict) throw new HttpError('conflict', err.message, { status: err.status });
      throw err;
    }
  });

  router.get('/memories/:id/history', async (req, res) => {
    const id = await visibleId(req);
    const versions = await listVersions(deps, id, { namespace: principalOf(req).namespace });
    if (!versions) throw notFound('Memory');
    res.json({ episode_id: id, current_version: versions[versions.length - 1].version, versions });
  });

  return router;
}
