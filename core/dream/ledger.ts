import { ApplicationFailure } from '@temporalio/common';
import { withTransaction, type Pool, type PoolClient } from '../db/pool.js';
import type { DreamBatchResult, DreamCursor, DreamPass, PassCounts } from './contracts.js';
import { addBatch } from './report.js';
import { loadRun, storedReport } from './runs.js';

/** What one batch did: its counts and where the next batch starts. */
export interface BatchOutcome<P extends DreamPass> {
  counts: PassCounts<P>;
  next: DreamCursor | null;
}

/** The last applied batch, kept in `dream_run.report.checkpoint`. */
interface Checkpoint {
  batch: number;
  next: DreamCursor | null;
}

export interface AppliedBatch extends DreamBatchResult {
  /** False when a retry found the batch already applied. */
  applied: boolean;
}

function checkpointOf(report: Record<string, unknown>): Checkpoint | null {
  const c = report.checkpoint as Checkpoint | undefined;
  return c && typeof c.batch === 'number' ? c : null;
}

/**
 * Applies batch number `batch` of a dream run exactly once: under the run
 * row's lock, in one transaction with the batch's own writes, the counts are
 * added to the report and the batch is recorded as the checkpoint. A retried
 * activity (the worker died after the commit, or the result was lost) finds
 * the checkpoint and gets the same result back without writing anything, so
 * the run's report does not depend on how often a batch was attempted.
 */
export async function applyBatch<P extends DreamPass>(
  pool: Pool,
  runId: string,
  batch: number,
  pass: P,
  work: (tx: PoolClient) => Promise<BatchOutcome<P>>,
): Promise<AppliedBatch> {
  return withTransaction(pool, async (tx) => {
    const run = await loadRun(tx, runId, true);
    if (!run) throw ApplicationFailure.nonRetryable(`dream run ${runId} not found`, 'DreamRunNotFound');
    const done = checkpointOf(run.report);
    if (done && done.batch >= batch) {
      return { next: done.next, report: storedReport(run.report), applied: false };
    }
    const started = performance.now();
    const outcome = await work(tx);
    const report = addBatch(storedReport(run.report), pass, outcome.counts, (performance.now() - started) / 1000);
    const checkpoint: Checkpoint = { batch, next: outcome.next };
    await tx.query('UPDATE dream_run SET report = $2 WHERE id = $1', [runId, JSON.stringify({ ...report, checkpoint })]);
    return { next: outcome.next, report, applied: true };
  });
}
