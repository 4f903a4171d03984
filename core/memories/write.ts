import { randomUUID } from 'node:crypto';
import type { Pool } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { GroupCommit } from '../db/groupCommit.js';
import { episodeWorkflowId } from '../ingest/contracts.js';
import { ExtractionDispatcher, unclaimedEpisodes } from '../ingest/dispatcher.js';
import { restartExtraction, runsStagesLocally, startExtraction } from '../ingest/startExtraction.js';
import { countTaskWrites, reserveTaskWrites } from '../tasks/writeLimit.js';
import { offsetOfIsoInstant } from '../domain/timezone.js';
import type { ContentType } from '../sources/contentType.js';

export interface NewMemory {
  content: string;
  namespace: string;
  userId?: string;
  agentId?: string;
  runId?: string;
  speaker?: string;
  occurredAt?: string;
  source?: string;
  metadata?: Record<string, unknown>;
  tValidOverride?: string;
  skipExtraction?: boolean;
  /** A persistent task of the same namespace: the write counts against its current burst's limit. */
  taskId?: string;
  /** The writer's IANA time zone; relative dates in the content resolve in it (else the offset of occurredAt, the namespace default, UTC). */
  timezone?: string;
  /** What the content is (core/sources): text (default), email, calendar_event, json. */
  contentType?: ContentType;
}

/** Who is writing (for the audit row of a refused task write). */
export interface WriteCause {
  actor: string;
  requestId?: string | null;
}

export interface AcceptedMemory {
  id: string;
  workflow_id: string;
  status: 'pending';
}

interface EpisodeInsert {
  id: string;
  namespace: string;
  user_id: string | null;
  agent_id: string | null;
  run_id: string | null;
  speaker: string | null;
  content: string;
  source: string | null;
  metadata: Record<string, unknown>;
  occurred_at: string;
  t_valid_override: string | null;
  skip_extraction: boolean;
  task_id: string | null;
  timezone: string | null;
  workflow_id: string;
  recorded_at: string;
  content_type: ContentType;
}

/** One INSERT for many episodes (rows travel as one JSON parameter: no parameter-count limit). */
async function insertEpisodes(pool: Pool, rows: EpisodeInsert[]): Promise<void> {
  await pool.query(
    `INSERT INTO episode (id, namespace, user_id, agent_id, run_id, speaker, content, source, metadata, occurred_at,
                          t_valid_override, skip_extraction, task_id, timezone, workflow_id, recorded_at, content_type)
     SELECT id, namespace, user_id, agent_id, run_id, speaker, content, source, metadata, occurred_at,
            t_valid_override, skip_extraction, task_id, timezone, workflow_id, recorded_at, content_type
       FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, namespace text, user_id text, agent_id text, run_id text, speaker text,
            content text, source text, metadata jsonb, occurred_at timestamptz, t_valid_override timestamptz,
            skip_extraction boolean, task_id uuid, timezone text, workflow_id text, recorded_at timestamptz, content_type text)`,
    [JSON.stringify(rows)],
  );
}

/**
 * The write path's contract: the episode rows are committed before anything
 * is acknowledged; extraction is started afterwards, and if Temporal is
 * unreachable the `reconcile` schedule starts it later. Nothing acknowledged is lost.
 */
export class MemoryWriter {
  private readonly knownNamespaces = new Set<string>();
  private readonly dispatcher: ExtractionDispatcher;

  private readonly groupCommit: GroupCommit<EpisodeInsert>;

  constructor(private readonly deps: Pick<Deps, 'pool' | 'temporal' | 'logger' | 'now' | 'config'>) {
    this.dispatcher = new ExtractionDispatcher(
      (id) => this.startQuietly(id),
      deps.logger,
      { startsPerSecond: deps.config.EXTRACTION_STARTS_PER_SECOND, maxUnclaimed: deps.config.EXTRACTION_START_WINDOW },
      undefined,
      (ids) => unclaimedEpisodes(deps.pool, ids),
    );
    this.groupCommit = new GroupCommit((rows) => insertEpisodes(deps.pool, rows));
  }

  private async ensureNamespaces(namespaces: string[]): Promise<void> {
    const missing = [...new Set(namespaces)].filter((n) => !this.knownNamespaces.has(n));
    if (missing.length === 0) return;
    await this.deps.pool.query('INSERT INTO namespace (id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [missing]);
    missing.forEach((n) => this.knownNamespaces.add(n));
  }

  /** Stores the memories; those naming a task first reserve their writes (UnknownTask, TaskWriteLimitExceeded: nothing is stored). */
  async accept(memories: NewMemory[], cause: WriteCause = { actor: 'system' }): Promise<AcceptedMemory[]> {
    await this.ensureNamespaces(memories.map((m) => m.namespace));
    await reserveTaskWrites(this.deps.pool, countTaskWrites(memories), cause);
    const now = this.deps.now().toISOString();
    const rows: EpisodeInsert[] = memories.map((m) => {
      const id = randomUUID();
      return {
        id,
        namespace: m.namespace,
        user_id: m.userId ?? null,
        agent_id: m.agentId ?? null,
        run_id: m.runId ?? null,
        speaker: m.speaker ?? null,
        content: m.content,
        source: m.source ?? null,
        metadata: m.metadata ?? {},
        occurred_at: m.occurredAt ?? now,
        t_valid_override: m.tValidOverride ?? null,
        skip_extraction: m.skipExtraction ?? false,
        task_id: m.taskId ?? null,
        // occurred_at is stored as an instant: keep the writer's zone (or the offset it was written with) beside it.
        timezone: m.timezone ?? (m.occurredAt ? offsetOfIsoInstant(m.occurredAt) : null),
        workflow_id: episodeWorkflowId(id),
        recorded_at: now,
        content_type: m.contentType ?? 'text',
      };
    });
    await this.groupCommit.add(rows);
    // Acknowledged: the rows are durable. Hand them to Temporal without making the caller wait.
    for (const row of rows) this.dispatcher.enqueue(row.id);
    return rows.map((row) => ({ id: row.id, workflow_id: row.workflow_id, status: 'pending' as const }));
  }

  /** Starts extraction, or attaches to the run already extracting; failures are logged and left to reconcile. */
  async startQuietly(episodeId: string): Promise<boolean> {
    return this.quietly(episodeId, startExtraction);
  }

  /**
   * Extraction again for an episode a retry found failed. A run of its id still open can only be the failed run
   * finishing (its stage failure is recorded before the run ends), which will not extract it: attached to, the retry
   * was lost and the episode stayed pending until reconcile. It is replaced by a new run instead.
   */
  async retryQuietly(episodeId: string): Promise<boolean> {
    return this.quietly(episodeId, restartExtraction);
  }

  private async quietly(episodeId: string, start: typeof startExtraction): Promise<boolean> {
    try {
      await start(this.deps.temporal, { episodeId, localStages: runsStagesLocally(this.deps.config) });
      return true;
    } catch (err) {
      this.deps.logger.warn({ err, episodeId, workflowId: episodeWorkflowId(episodeId) }, 'could not start extraction; reconcile will retry');
      return false;
    }
  }
}
