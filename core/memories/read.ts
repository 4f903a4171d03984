import type { Deps } from '../deps.js';
import type { EpisodeStatus } from '../domain/types.js';

export interface EpisodeView {
  id: string;
  namespace: string;
  user_id: string | null;
  agent_id: string | null;
  run_id: string | null;
  speaker: string | null;
  content: string;
  /** text | email | calendar_event | json (core/sources). */
  content_type: string;
  source: string | null;
  metadata: unknown;
  occurred_at: string;
  recorded_at: string;
  t_valid_override: string | null;
  skip_extraction: boolean;
  status: string;
  error: string | null;
  workflow_id: string;
  extraction_count: number;
  extracted_at: string | null;
  forgotten_at: string | null;
  entity_ids?: string[];
  fact_ids?: string[];
}

type EpisodeRecord = Awaited<ReturnType<Deps['prisma']['episode']['findFirstOrThrow']>>;

function view(e: EpisodeRecord): EpisodeView {
  return {
    id: e.id,
    namespace: e.namespace,
    user_id: e.userId,
    agent_id: e.agentId,
    run_id: e.runId,
    speaker: e.speaker,
    content: e.content,
    content_type: e.contentType,
    source: e.source,
    metadata: e.metadata,
    occurred_at: e.occurredAt.toISOString(),
    recorded_at: e.recordedAt.toISOString(),
    t_valid_override: e.tValidOverride?.toISOString() ?? null,
    skip_extraction: e.skipExtraction,
    status: e.status,
    error: e.error,
    workflow_id: e.workflowId,
    extraction_count: e.extractionCount,
    extracted_at: e.extractedAt?.toISOString() ?? null,
    forgotten_at: e.forgottenAt?.toISOString() ?? null,
  };
}

export interface ListFilter {
  namespace: string;
  userId?: string;
  agentId?: string;
  runId?: string;
  status?: EpisodeStatus;
  limit: number;
  cursor?: string;
  includeForgotten?: boolean;
}

/** Cursor = the last row's (recorded_at, id), opaque to clients. */
export function encodeCursor(recordedAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([recordedAt.toISOString(), id])).toString('base64url');
}

export function decodeCursor(cursor: string): { recordedAt: Date; id: string } | null {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const recordedAt = new Date(at);
    if (Number.isNaN(recordedAt.getTime()) || typeof id !== 'string') return null;
    return { recordedAt, id };
  } catch {
    return null;
  }
}

/** Episodes newest first, keyset-paginated. */
export async function listEpisodes(deps: Pick<Deps, 'prisma'>, filter: ListFilter, after: { recordedAt: Date; id: string } | null) {
  const rows = await deps.prisma.episode.findMany({
    where: {
      namespace: filter.namespace,
      userId: filter.userId,
      agentId: filter.agentId,
      runId: filter.runId,
      status: filter.status,
      ...(filter.includeForgotten ? {} : { forgottenAt: null }),
      ...(after
        ? { OR: [{ recordedAt: { lt: after.recordedAt } }, { recordedAt: after.recordedAt, id: { lt: after.id } }] }
        : {}),
    },
    orderBy: [{ recordedAt: 'desc' }, { id: 'desc' }],
    take: filter.limit + 1,
  });
  const page = rows.slice(0, filter.limit);
  const last = page[page.length - 1];
  return {
    memories: page.map(view),
    next_cursor: rows.length > filter.limit && last ? encodeCursor(last.recordedAt, last.id) : null,
  };
}

/** One episode with the ids of what its extraction produced. */
export async function getEpisode(deps: Pick<Deps, 'prisma'>, id: string): Promise<EpisodeView | null> {
  const episode = await deps.prisma.episode.findUnique({
    where: { id },
    include: { factEpisodes: { select: { factId: true } }, entityEpisodes: { select: { entityId: true } } },
  });
  if (!episode) return null;
  return {
    ...view(episode),
    entity_ids: [...new Set(episode.entityEpisodes.map((e) => e.entityId))],
    fact_ids: [...new Set(episode.factEpisodes.map((f) => f.factId))],
  };
}

export async function listStageRuns(deps: Pick<Deps, 'prisma'>, episodeId: string) {
  const runs = await deps.prisma.stageRun.findMany({ where: { episodeId }, orderBy: [{ startedAt: 'asc' }, { attempt: 'asc' }] });
  return runs.map((r) => ({
    id: r.id,
    stage: r.stage,
    attempt: r.attempt,
    status: r.status,
    workflow_id: r.workflowId,
    workflow_run_id: r.workflowRunId,
    input: r.input,
    output: r.output,
    model_calls: r.modelCalls,
    tokens_in: r.tokensIn,
    tokens_out: r.tokensOut,
    started_at: r.startedAt.toISOString(),
    finished_at: r.finishedAt?.toISOString() ?? null,
    duration_ms: r.durationMs,
    error: r.error,
  }));
}
