import { Context } from '@temporalio/activity';
import { currentWorkflow } from './context.js';
import { GroupCommit } from '../core/db/groupCommit.js';
import type { Pool } from '../core/db/pool.js';
import type { Stage } from '../core/domain/types.js';
import { NO_USAGE, type ModelUsage } from '../core/extraction/types.js';

export interface StageResult<T> {
  output: T;
  usage?: ModelUsage;
}

interface StageScope {
  namespace: string;
  episodeId: string;
}

function errorText(err: unknown): string {
  const e = err as Error & { type?: string };
  return e?.type ? `${e.type}: ${e.message}` : (e?.message ?? String(err));
}

interface Outcome {
  status: 'running' | 'succeeded' | 'failed';
  output?: unknown;
  usage?: ModelUsage;
  error?: string;
  finishedAt?: Date;
}

interface StageRunRow {
  namespace: string;
  episode_id: string;
  workflow_id: string;
  workflow_run_id: string;
  stage: Stage;
  attempt: number;
  status: Outcome['status'];
  input: unknown;
  output: unknown;
  model_calls: number;
  tokens_in: number;
  tokens_out: number;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  error: string | null;
}

/** Upserts attempts' rows, keyed by workflow run, stage and attempt (a redelivered attempt updates its own row). */
async function upsertRuns(pool: Pool, rows: StageRunRow[]): Promise<void> {
  await pool.query(
    `INSERT INTO stage_run (namespace, episode_id, workflow_id, workflow_run_id, stage, attempt, status, input, output,
                            model_calls, tokens_in, tokens_out, started_at, finished_at, duration_ms, error)
     SELECT namespace, episode_id, workflow_id, workflow_run_id, stage, attempt, status, input, output,
            model_calls, tokens_in, tokens_out, started_at, finished_at, duration_ms, error
       FROM jsonb_to_recordset($1::jsonb) AS r(namespace text, episode_id uuid, workflow_id text, workflow_run_id text, stage text,
            attempt int, status text, input jsonb, output jsonb, model_calls int, tokens_in int, tokens_out int,
            started_at timestamptz, finished_at timestamptz, duration_ms int, error text)
     ON CONFLICT (episode_id, workflow_run_id, stage, attempt)
     DO UPDATE SET status = EXCLUDED.status, output = EXCLUDED.output, model_calls = EXCLUDED.model_calls,
                   tokens_in = EXCLUDED.tokens_in, tokens_out = EXCLUDED.tokens_out, finished_at = EXCLUDED.finished_at,
                   duration_ms = EXCLUDED.duration_ms, error = EXCLUDED.error`,
    [JSON.stringify(rows)],
  );
}

/**
 * The worker's `stage_run` writer. Every attempt's row is written (and awaited)
 * before its activity completes, but rows of concurrent episodes share one
 * INSERT: seven stages per episode made these a third of a worker's round
 * trips to Postgres. One attempt's writes are sequential, so a batch never
 * holds the same attempt twice.
 */
export class StageRunLog {
  private readonly groupCommit: GroupCommit<StageRunRow>;

  constructor(pool: Pool) {
    this.groupCommit = new GroupCommit((rows) => upsertRuns(pool, rows));
  }

  write(stage: Stage, scope: StageScope, input: unknown, startedAt: Date, outcome: Outcome): Promise<void> {
    const wf = currentWorkflow();
    const usage = outcome.usage ?? NO_USAGE;
    return this.groupCommit.add([
      {
        namespace: scope.namespace,
        episode_id: scope.episodeId,
        workflow_id: wf.workflowId,
        workflow_run_id: wf.runId,
        stage,
        attempt: wf.attempt,
        status: outcome.status,
        input: input ?? null,
        output: outcome.output === undefined ? null : outcome.output,
        model_calls: usage.modelCalls,
        tokens_in: usage.tokensIn,
        tokens_out: usage.tokensOut,
        started_at: startedAt.toISOString(),
        finished_at: outcome.finishedAt?.toISOString() ?? null,
        duration_ms: outcome.finishedAt ? outcome.finishedAt.getTime() - startedAt.getTime() : null,
        error: outcome.error?.slice(0, 4000) ?? null,
      },
    ]);
  }
}

/**
 * Runs one stage attempt and records it as a `stage_run` row (input, output,
 * model usage, timing, error): what an operator drills into. Stages that call
 * a model (regular activities) write a `running` row first, so a slow or
 * killed attempt is visible while it happens; in-process stages (local
 * activities, milliseconds long) write their row once, when they end.
 */
export async function recordStage<T>(
  log: StageRunLog,
  stage: Stage,
  scope: StageScope,
  input: unknown,
  run: () => Promise<StageResult<T>>,
): Promise<T> {
  const context = Context.current();
  const remote = !context.info.isLocal;
  const startedAt = new Date();
  if (remote) await log.write(stage, scope, input, startedAt, { status: 'running' });
  // Regular activities heartbeat while a slow model call runs, so a dead worker is noticed in seconds.
  const heartbeat = remote ? setInterval(() => context.heartbeat(), 2_000) : undefined;
  try {
    const { output, usage } = await run();
    await log.write(stage, scope, input, startedAt, { status: 'succeeded', output, usage, finishedAt: new Date() });
    return output;
  } catch (err) {
    await log.write(stage, scope, input, startedAt, { status: 'failed', error: errorText(err), finishedAt: new Date() }).catch(() => undefined);
    throw err;
  } finally {
    if (heartbeat) clearInterval(heartbeat);
  }
}
