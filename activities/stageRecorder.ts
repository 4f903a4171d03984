import { Context } from '@temporalio/activity';
import { currentWorkflow } from './context.js';
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

/** Upserts the attempt's row, keyed by workflow run, stage and attempt (a redelivered attempt updates its own row). */
async function writeRun(pool: Pool, stage: Stage, scope: StageScope, input: unknown, startedAt: Date, outcome: Outcome): Promise<void> {
  const wf = currentWorkflow();
  const usage = outcome.usage ?? NO_USAGE;
  await pool.query(
    `INSERT INTO stage_run (namespace, episode_id, workflow_id, workflow_run_id, stage, attempt, status, input, output,
                            model_calls, tokens_in, tokens_out, started_at, finished_at, duration_ms, error)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
     ON CONFLICT (episode_id, workflow_run_id, stage, attempt)
     DO UPDATE SET status = EXCLUDED.status, output = EXCLUDED.output, model_calls = EXCLUDED.model_calls,
                   tokens_in = EXCLUDED.tokens_in, tokens_out = EXCLUDED.tokens_out, finished_at = EXCLUDED.finished_at,
                   duration_ms = EXCLUDED.duration_ms, error = EXCLUDED.error`,
    [
      scope.namespace, scope.episodeId, wf.workflowId, wf.runId, stage, wf.attempt, outcome.status, JSON.stringify(input ?? null),
      outcome.output === undefined ? null : JSON.stringify(outcome.output), usage.modelCalls, usage.tokensIn, usage.tokensOut,
      startedAt, outcome.finishedAt ?? null, outcome.finishedAt ? outcome.finishedAt.getTime() - startedAt.getTime() : null,
      outcome.error?.slice(0, 4000) ?? null,
    ],
  );
}

/**
 * Runs one stage attempt and records it as a `stage_run` row (input, output,
 * model usage, timing, error): what an operator drills into. Stages that call
 * a model (regular activities) write a `running` row first, so a slow or
 * killed attempt is visible while it happens; in-process stages (local
 * activities, milliseconds long) write their row once, when they end.
 */
export async function recordStage<T>(
  pool: Pool,
  stage: Stage,
  scope: StageScope,
  input: unknown,
  run: () => Promise<StageResult<T>>,
): Promise<T> {
  const context = Context.current();
  const remote = !context.info.isLocal;
  const startedAt = new Date();
  if (remote) await writeRun(pool, stage, scope, input, startedAt, { status: 'running' });
  // Regular activities heartbeat while a slow model call runs, so a dead worker is noticed in seconds.
  const heartbeat = remote ? setInterval(() => context.heartbeat(), 2_000) : undefined;
  try {
    const { output, usage } = await run();
    await writeRun(pool, stage, scope, input, startedAt, { status: 'succeeded', output, usage, finishedAt: new Date() });
    return output;
  } catch (err) {
    await writeRun(pool, stage, scope, input, startedAt, { status: 'failed', error: errorText(err), finishedAt: new Date() }).catch(() => undefined);
    throw err;
  } finally {
    if (heartbeat) clearInterval(heartbeat);
  }
}
