/**
 * The live state of one persistent task, as the persistentTask workflow keeps
 * it: pure (no I/O, no clock: every change takes `now`), so the workflow stays
 * thin and the rules are unit-tested. Workflow-safe.
 */
import {
  RECENT_BURSTS,
  type BurstResult,
  type BurstSummary,
  type CarriedTaskState,
  type PersistentTaskInput,
  type ProgressArgs,
  type TaskRecord,
  type TaskStatus,
  type TaskView,
} from './contracts.js';

/** What finishing a burst led to. */
export interface BurstVerdict {
  /** The budget reached zero with this burst: the task paused itself and needs a review. */
  budgetSpent: boolean;
  reason: string | null;
}

export class PersistentTaskState {
  private s: CarriedTaskState;
  /** Bumped on every change: the workflow persists the state whenever it moved past what was saved. */
  private changes = 0;

  constructor(private readonly task: Pick<PersistentTaskInput, 'taskId' | 'namespace' | 'intent' | 'schedule' | 'errorBudget' | 'carried'>) {
    this.s = task.carried
      ? structuredCloneState(task.carried)
      : {
          status: 'active',
          progress: { note: null, percent: null, updated_at: null },
          errorBudget: task.errorBudget,
          errorBudgetRemaining: task.errorBudget,
          currentBurst: 0,
          lastScheduledAt: null,
          // Planned by the workflow from its own clock.
          nextBurstAt: null,
          bursts: [],
        };
  }

  get status(): TaskStatus {
    return this.s.status;
  }
  get version(): number {
    return this.changes;
  }
  get isFinished(): boolean {
    return this.s.status === 'cancelled' || this.s.status === 'completed';
  }
  get nextBurstAt(): string | null {
    return this.s.nextBurstAt;
  }
  get lastScheduledAt(): string | null {
    return this.s.lastScheduledAt;
  }

  /** Stops bursts until resumed; the next burst is planned afresh on resume. */
  pause(): boolean {
    if (this.s.status !== 'active') return false;
    this.s.status = 'paused';
    this.s.nextBurstAt = null;
    return this.changed();
  }

  /** Resumes a paused task; a spent budget is refilled (an operator decided to go on). */
  resume(): boolean {
    if (this.s.status !== 'paused') return false;
    this.s.status = 'active';
    if (this.s.errorBudgetRemaining <= 0) this.s.errorBudgetRemaining = this.s.errorBudget;
    return this.changed();
  }

  cancel(): boolean {
    if (this.isFinished) return false;
    this.s.status = 'cancelled';
    this.s.nextBurstAt = null;
    return this.changed();
  }

  /** Sets the budget and refills what remains to it. */
  setBudget(errorBudget: number): boolean {
    if (this.isFinished) return false;
    this.s.errorBudget = errorBudget;
    this.s.errorBudgetRemaining = errorBudget;
    return this.changed();
  }

  /** A progress note; `done` completes the task. A finished task ignores it. */
  recordProgress(args: ProgressArgs, now: Date): boolean {
    if (this.isFinished) return false;
    this.applyProgress(args.note, args.percent, now.toISOString());
    if (args.done) {
      this.s.status = 'completed';
      this.s.nextBurstAt = null;
    }
    return this.changed();
  }

  /** The next burst's time, planned from the schedule while active. */
  planNext(at: string): boolean {
    if (this.s.status !== 'active') return false;
    this.s.nextBurstAt = at;
    return this.changed();
  }

  /** Starts the burst due now: returns its index and scheduled time. */
  beginBurst(): { burst: number; scheduledAt: string } {
    if (this.s.status !== 'active' || !this.s.nextBurstAt) throw new Error(`no burst is due (status ${this.s.status})`);
    const scheduledAt = this.s.nextBurstAt;
    this.s.currentBurst += 1;
    this.s.lastScheduledAt = scheduledAt;
    this.s.nextBurstAt = null;
    this.changed();
    return { burst: this.s.currentBurst, scheduledAt };
  }

  /**
   * Records a burst's result: a failure costs one unit of budget and the task
   * pauses itself when none is left; the webhook's answer may carry progress
   * and `done`. A task paused or cancelled while the burst ran stays so.
   */
  finishBurst(burst: number, scheduledAt: string, result: BurstResult): BurstVerdict {
    const summary: BurstSummary = {
      burst,
      scheduled_at: scheduledAt,
      finished_at: result.finishedAt,
      outcome: result.outcome,
      http_status: result.httpStatus,
      error: result.error,
    };
    this.s.bursts = [summary, ...this.s.bursts].slice(0, RECENT_BURSTS);
    this.changed();
    if (result.outcome === 'failed') {
      this.s.errorBudgetRemaining = Math.max(0, this.s.errorBudgetRemaining - 1);
      if (this.s.errorBudgetRemaining === 0 && this.s.status === 'active') {
        this.s.status = 'paused';
        this.s.nextBurstAt = null;
        return { budgetSpent: true, reason: `error budget of ${this.s.errorBudget} spent; burst ${burst} failed: ${result.error ?? 'unknown error'}` };
      }
      return { budgetSpent: false, reason: null };
    }
    const answer = result.answer;
    if (this.isFinished) return { budgetSpent: false, reason: null };
    if (answer?.progress && (answer.progress.note !== undefined || answer.progress.percent !== undefined)) {
      this.applyProgress(answer.progress.note ?? this.s.progress.note, answer.progress.percent, result.finishedAt);
    }
    if (answer?.done) {
      this.s.status = 'completed';
      this.s.nextBurstAt = null;
    }
    return { budgetSpent: false, reason: null };
  }

  /** The `state` query's answer. */
  view(): TaskView {
    return {
      id: this.task.taskId,
      namespace: this.task.namespace,
      intent: this.task.intent,
      schedule: this.task.schedule,
      status: this.s.status,
      progress: { ...this.s.progress },
      error_budget: this.s.errorBudget,
      error_budget_remaining: this.s.errorBudgetRemaining,
      current_burst: this.s.currentBurst,
      bursts: this.s.bursts.map((b) => ({ ...b })),
      next_burst_at: this.s.nextBurstAt,
    };
  }

  /** The durable copy for `persistent_task`. */
  record(): TaskRecord {
    return {
      taskId: this.task.taskId,
      namespace: this.task.namespace,
      status: this.s.status,
      progress: { ...this.s.progress },
      errorBudget: this.s.errorBudget,
      errorBudgetRemaining: this.s.errorBudgetRemaining,
      currentBurst: this.s.currentBurst,
      nextBurstAt: this.s.nextBurstAt,
    };
  }

  /** Everything continue-as-new carries into the next run. */
  carry(): CarriedTaskState {
    return structuredCloneState(this.s);
  }

  private applyProgress(note: string | null, percent: number | undefined, at: string): void {
    this.s.progress = { note, percent: percent ?? this.s.progress.percent, updated_at: at };
  }

  private changed(): true {
    this.changes += 1;
    return true;
  }
}

function structuredCloneState(s: CarriedTaskState): CarriedTaskState {
  return { ...s, progress: { ...s.progress }, bursts: s.bursts.map((b) => ({ ...b })) };
}
