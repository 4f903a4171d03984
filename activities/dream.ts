import { Context } from '@temporalio/activity';
import { writeAudit } from '../core/audit/auditLog.js';
import { startUnstartedReviewWorkflows } from '../core/reviews/reconcile.js';
import type { BeginDreamRunInput, BeginDreamRunResult, DreamBatchInput, DreamBatchResult, DreamPass, DreamReport } from '../core/dream/contracts.js';
import { decayBatch } from '../core/dream/decay.js';
import { duplicatesBatch } from '../core/dream/duplicates.js';
import { applyBatch, type BatchOutcome } from '../core/dream/ledger.js';
import { cursorAfter, firstCursor } from '../core/dream/namespaces.js';
import { reembedBatch } from '../core/dream/reembed.js';
import { completeRun, createRunRow, failRun, runIdForWorkflow, storedReport } from '../core/dream/runs.js';
import { expireSessionsBatch } from '../core/dream/sessions.js';
import type { DreamCursor } from '../core/dream/contracts.js';
import type { PoolClient } from '../core/db/pool.js';
import type { ActivityDeps } from './deps.js';

const ACTOR = 'system:dream';
/** Review workflows started per statement when a run ends. */
const REVIEW_START_BATCH = 500;

function workflowIdOfActivity(): string | null {
  try {
    return Context.current().info.workflowExecution?.workflowId ?? null;
  } catch {
    return null; // called outside an activity (benchmark)
  }
}

function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // outside an activity
  }
}

/** Where a pass's batch works: in one namespace, from one row on. */
interface BatchPlace {
  cursor: DreamCursor;
  tx: PoolClient;
}

/**
 * The dream's activities: one per pass, each applying one batch exactly once
 * (core/dream/ledger.ts), plus the run's bookkeeping. Activity names are
 * stored in workflow histories: do not rename them.
 */
export function createDreamActivities(deps: ActivityDeps) {
  /** Runs one batch of `pass` at the input's cursor (or the pass's first namespace) and moves the cursor on. */
  async function runBatch<P extends DreamPass>(
    pass: P,
    input: DreamBatchInput,
    work: (place: BatchPlace) => Promise<Omit<BatchOutcome<P>, 'next'> & { full: boolean; lastKey: string | null }>,
  ): Promise<DreamBatchResult> {
    heartbeat();
    const applied = await applyBatch(deps.pool, input.runId, input.batch, pass, async (tx) => {
      const cursor = input.cursor ?? (await firstCursor(tx, input.scope));
      if (!cursor) return { counts: zeroCounts(pass), next: null };
      const { full, lastKey, ...outcome } = await work({ cursor, tx });
      return { ...outcome, next: await cursorAfter(tx, input.scope, cursor, { full, lastKey }) };
    });
    // Merge proposals get their review workflows when the run ends (finishDreamRun), not here: dozens
    // of review workflows starting mid-run took the run's own CPU (first run over 100k facts: 2.2 s → 1.4 s).
    return { next: applied.next, report: applied.report };
  }

  return {
    /** Creates the run's row (idempotent: keyed by the run id, derived from the workflow id for scheduled runs). */
    async beginDreamRun(input: BeginDreamRunInput): Promise<BeginDreamRunResult & { completed: boolean }> {
      const runId = input.runId ?? runIdForWorkflow(input.workflowId);
      const row = await createRunRow(deps.pool, { id: runId, namespace: input.namespace, workflowId: input.workflowId, requestedBy: input.requestedBy ?? null });
      return { runId, report: storedReport(row.report), completed: row.status === 'completed' };
    },

    /** Pass 1: persisted decay and stale marking (set-based, one statement per batch). */
    async dreamDecay(input: DreamBatchInput): Promise<DreamBatchResult> {
      return runBatch('decay', input, async ({ cursor, tx }) => {
        const r = await decayBatch(tx, { namespace: cursor.namespace, after: cursor.after, now: new Date(input.now), floor: deps.config.DECAY_FLOOR, limit: input.limit });
        // One row per batch, not per fact: a nightly row per fact would dwarf the facts themselves.
        if (r.factsUpdated) {
          await writeAudit(tx, { namespace: cursor.namespace, actor: ACTOR, workflowId: workflowIdOfActivity() }, [
            {
              action: 'fact.decayed',
              targetType: 'fact',
              targetId: null,
              after: { facts_updated: r.factsUpdated, stale_marked: r.staleMarked, stale_cleared: r.staleCleared, floor: deps.config.DECAY_FLOOR, at: input.now },
            },
          ]);
        }
        return { counts: { facts_updated: r.factsUpdated, stale_marked: r.staleMarked }, full: r.full, lastKey: r.lastId };
      });
    },

    /** Pass 2: idle working memory whose session workflow is gone is archived. */
    async dreamExpireSessions(input: DreamBatchInput): Promise<DreamBatchResult> {
      // Archived before the batch's ledger transaction, not inside it: archiveSession commits its own
      // transactions, which must not wait on one held open here (on the embedded PGlite, one session,
      // they would wait forever). Archiving is idempotent, so a retried batch archives nothing twice.
      const place = input.cursor ?? (await firstCursor(deps.pool, input.scope));
      const r = place
        ? await expireSessionsBatch(deps, deps.pool, { namespace: place.namespace, after: place.after, now: new Date(input.now), limit: input.limit, workflowId: workflowIdOfActivity() })
        : null;
      return runBatch('session_expiry', input, async () => ({
        counts: { sessions_checked: r?.sessionsChecked ?? 0, sessions_expired: r?.sessionsExpired ?? 0 },
        full: r?.full ?? false,
        lastKey: r?.lastId ?? null,
      }));
    },

    /** Pass 3: duplicate-entity candidates become merge review items (never merges). */
    async dreamProposeMerges(input: DreamBatchInput): Promise<DreamBatchResult> {
      return runBatch('duplicates', input, async ({ cursor, tx }) => {
        const r = await duplicatesBatch(tx, { namespace: cursor.namespace, after: cursor.after, limit: input.limit, cause: { actor: ACTOR, workflowId: workflowIdOfActivity() } });
        return { counts: { entities_checked: r.entitiesChecked, pairs_proposed: r.pairsProposed }, full: r.full, lastKey: r.lastId };
      });
    },

    /** Pass 4: rows embedded by another model than the configured one are embedded again. */
    async dreamReembed(input: DreamBatchInput): Promise<DreamBatchResult> {
      return runBatch('reembed', input, async ({ cursor, tx }) => {
        const r = await reembedBatch(tx, deps.embedder, { namespace: cursor.namespace, after: cursor.after, limit: input.limit, passages: deps.config.EPISODE_PASSAGES });
        return { counts: { episodes_reembedded: r.episodes, facts_reembedded: r.facts }, full: r.full, lastKey: r.lastKey };
      });
    },

    /** Pass 5: the run is completed with its report (idempotent). */
    async finishDreamRun(input: { runId: string }): Promise<DreamReport> {
      const report = await completeRun(deps.pool, input.runId);
      // The run's merge proposals (and any other item still without one) get their `review:<id>` workflow now;
      // what fails here is started by the reconcile schedule within a minute.
      for (;;) {
        const { found, started } = await startUnstartedReviewWorkflows(deps, REVIEW_START_BATCH);
        if (found < REVIEW_START_BATCH || started === 0) break;
      }
      return report;
    },

    async failDreamRun(input: { runId: string; error: string }): Promise<void> {
      await failRun(deps.pool, input.runId, input.error);
    },
  };
}

function zeroCounts<P extends DreamPass>(pass: P): BatchOutcome<P>['counts'] {
  const zero: { [K in DreamPass]: BatchOutcome<K>['counts'] } = {
    decay: { facts_updated: 0, stale_marked: 0 },
    session_expiry: { sessions_checked: 0, sessions_expired: 0 },
    duplicates: { entities_checked: 0, pairs_proposed: 0 },
    reembed: { episodes_reembedded: 0, facts_reembedded: 0 },
  };
  return zero[pass];
}
