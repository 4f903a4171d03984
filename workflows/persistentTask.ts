import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  cancel,
  pause,
  persistentTaskInputSchema,
  progress,
  progressArgsSchema,
  resume,
  setBudget,
  setBudgetArgsSchema,
  state,
  type PersistentTaskInput,
  type TaskView,
} from '../core/tasks/contracts.js';
import { PersistentTaskState } from '../core/tasks/state.js';

/** Bursts per run before the history is handed to a fresh run (continue-as-new). */
const DEFAULT_BURSTS_PER_RUN = 100;

const { planTaskBurst } = proxyLocalActivities<Pick<Activities, 'planTaskBurst'>>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', maximumAttempts: 5 },
});
// The webhook has 10 s; a retry (database trouble) finds the burst's row and any recorded outcome.
const { runTaskBurst } = proxyActivities<Pick<Activities, 'runTaskBurst'>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
const books = proxyActivities<Pick<Activities, 'saveTaskState' | 'openTaskBudgetReview'>>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * A long-running agent task (id `task:<task id>`): runs a burst at each
 * scheduled time, takes pause / resume / cancel / setBudget / progress
 * signals, answers the `state` query, mirrors every change into
 * `persistent_task`, and pauses itself with a `task_budget` review item when
 * its error budget is spent. The rules live in PersistentTaskState.
 */
export async function persistentTask(rawInput: PersistentTaskInput): Promise<TaskView> {
  const parsed = persistentTaskInputSchema.safeParse(rawInput);
  if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid persistentTask input: ${parsed.error.message}`, 'InvalidTaskInput');
  const input = parsed.data;
  const task = new PersistentTaskState(input);

  setHandler(pause, () => void task.pause());
  setHandler(resume, () => void task.resume());
  setHandler(cancel, () => void task.cancel());
  setHandler(setBudget, (args) => {
    const budget = setBudgetArgsSchema.safeParse(args);
    if (budget.success) task.setBudget(budget.data.error_budget);
    else log.warn('ignored an invalid setBudget signal', { taskId: input.taskId, error: budget.error.message });
  });
  setHandler(progress, (args) => {
    const note = progressArgsSchema.safeParse(args);
    if (note.success) task.recordProgress(note.data, new Date());
    else log.warn('ignored an invalid progress signal', { taskId: input.taskId, error: note.error.message });
  });
  setHandler(state, () => task.view());

  // The row already holds the starting state (the API wrote it; a previous run saved it before continuing as new).
  let saved = task.version;
  const unsaved = () => task.version !== saved;
  const save = async () => {
    const version = task.version;
    await books.saveTaskState(task.record());
    saved = version;
  };
  const burstsPerRun = input.burstsPerRun ?? DEFAULT_BURSTS_PER_RUN;
  let bursts = 0;

  try {
    for (;;) {
      if (unsaved()) {
        await save();
        continue;
      }
      if (task.isFinished) break;
      if (bursts >= burstsPerRun || workflowInfo().continueAsNewSuggested) {
        await condition(allHandlersFinished);
        if (!unsaved()) await continueAsNew<typeof persistentTask>({ ...input, carried: task.carry() });
        continue;
      }
      if (task.status === 'paused') {
        await condition(unsaved);
        continue;
      }
      const nextBurstAt = task.nextBurstAt;
      if (!nextBurstAt) {
        const now = new Date().toISOString();
        task.planNext(await planTaskBurst({ schedule: input.schedule, after: task.lastScheduledAt ?? now, now }));
        continue;
      }
      const wait = Date.parse(nextBurstAt) - Date.now();
      if (wait > 0 && (await condition(unsaved, wait))) continue;

      const { burst, scheduledAt } = task.beginBurst();
      const result = await runTaskBurst({
        taskId: input.taskId,
        namespace: input.namespace,
        burst,
        scheduledAt,
        intent: input.intent,
        progress: task.view().progress,
        webhookUrl: input.webhookUrl,
      });
      bursts += 1;
      const verdict = task.finishBurst(burst, scheduledAt, result);
      if (verdict.budgetSpent) {
        await save();
        await books.openTaskBudgetReview({ taskId: input.taskId, namespace: input.namespace, burst, intent: input.intent, reason: verdict.reason ?? 'error budget spent' });
      }
    }
  } catch (err) {
    // `temporal workflow cancel` (rather than the cancel signal) ends the task the same way.
    if (!isCancellation(err)) throw err;
    task.cancel();
    await CancellationScope.nonCancellable(save);
    // Nothing cancellable may run in this scope any more (the handlers are synchronous: none is pending).
    return task.view();
  }
  await condition(allHandlersFinished);
  return task.view();
}
