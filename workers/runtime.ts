import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { NativeConnection, Runtime, Worker, bundleWorkflowCode, type LogLevel, type LogMetadata, type WorkflowBundleOption, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createActivities } from '../activities/index.js';
import type { Deps } from '../core/deps.js';
import { createExtractionProvider } from '../core/extraction/index.js';
import type { ExtractionProvider } from '../core/extraction/types.js';
import { RECONCILE_SCHEDULE_ID, SEARCH_STATS_SCHEDULE_ID, WORKFLOW_NAMES } from '../core/ingest/contracts.js';
import { withDeadline } from '../core/temporal/client.js';
import { DREAM_SCHEDULE_ID, DREAM_WORKFLOW_TYPE } from '../core/dream/contracts.js';
import { rechainStoredHistory } from '../activities/rechainStored.js';
import { ensureSearchAttributesAtStart } from '../core/temporal/searchAttributes.js';
import { localActivityConcurrency } from '../core/ingest/startExtraction.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export const WORKFLOWS_PATH = path.resolve(HERE, '../workflows/index.ts');

/**
 * Modules the workflow sandbox evaluates once per worker instead of once per
 * workflow run. With the reused V8 context every run gets fresh instances of
 * the bundle's modules, so each episode's `ingestEpisode` evaluated zod anew.
 * Only modules without per-run state belong here. The schemas themselves
 * cannot be shared: the sandbox freezes what is shared, and zod fills in a
 * schema's methods on first use.
 */
export const SHARED_WORKFLOW_MODULES = [path.resolve(HERE, '../core/temporal/sharedWorkflowModules.ts')];

export interface WorkerRuntime {
  worker: Worker;
  /** Resolves when the worker has stopped. */
  finished: Promise<void>;
  shutdown(): Promise<void>;
}

export interface StartWorkerOptions {
  /** Defaults to the provider named by LLM_PROVIDER. */
  extractor?: ExtractionProvider;
  /** A pre-built bundle (bundling takes about 4 s of wall time and 6 s of CPU here). */
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** Overrides of individual activities (tests). */
  activityOverrides?: Record<string, (...args: never[]) => Promise<unknown>>;
  ensureSchedules?: boolean;
  maxConcurrentActivityTaskExecutions?: number;
  maxConcurrentLocalActivityExecutions?: number;
}

let runtimeInstalled = false;

/** Routes the Temporal SDK's own logs (worker state, workflow `log.*`) into pino, once per process. */
function installRuntimeLogger(deps: Pick<Deps, 'logger' | 'config'>): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const logger = deps.logger.child({ component: 'temporal-sdk' });
  const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'debug', WARN: 'warn', ERROR: 'error' };
  const forward = (level: LogLevel, message: string, meta?: LogMetadata) => logger[levels[level]](meta ?? {}, message);
  const bindAddress = deps.config.WORKER_METRICS_ADDRESS;
  try {
    Runtime.install({
      logger: {
        log: forward,
        trace: (m, meta) => forward('TRACE', m, meta),
        debug: (m, meta) => forward('DEBUG', m, meta),
        info: (m, meta) => forward('INFO', m, meta),
        warn: (m, meta) => forward('WARN', m, meta),
        error: (m, meta) => forward('ERROR', m, meta),
      },
      // The SDK's worker metrics (task slots, poll and schedule-to-start latencies, activity outcomes) on a Prometheus endpoint.
      ...(bindAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress } } } } : {}),
    });
    if (bindAddress) deps.logger.info({ url: `http://${bindAddress}/metrics` }, 'Temporal worker metrics exported');
  } catch {
    // Already installed (e.g. by a test harness): keep that one.
    if (bindAddress) deps.logger.warn({ bindAddress }, 'Temporal runtime already installed: WORKER_METRICS_ADDRESS is not applied');
  }
}

let cachedBundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflow bundle, built once per process. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  cachedBundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, preloadModules: SHARED_WORKFLOW_MODULES, logger: quietBundlerLogger });
  return cachedBundle;
}

let cachedTracedBundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflow bundle with the tracing interceptors compiled in (a pre-built bundle ignores interceptor modules given later). */
function tracedWorkflowBundle(workflowModules: string[]): Promise<WorkflowBundleWithSourceMap> {
  cachedTracedBundle ??= bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: workflowModules,
    preloadModules: SHARED_WORKFLOW_MODULES,
    logger: quietBundlerLogger,
  });
  return cachedTracedBundle;
}

/**
 * The workflow code a worker runs: one given by the caller; with tracing, a bundle with its interceptors compiled in;
 * the file WORKFLOW_BUNDLE_PATH names (built ahead, so a worker starts without bundling); else one bundled now.
 */
async function chooseWorkflowBundle(deps: Pick<Deps, 'config' | 'logger' | 'tracing'>, options: StartWorkerOptions): Promise<WorkflowBundleOption> {
  if (options.workflowBundle) return options.workflowBundle;
  const prebuilt = deps.config.WORKFLOW_BUNDLE_PATH;
  if (deps.tracing) {
    if (prebuilt) deps.logger.warn({ prebuilt }, 'tracing needs its interceptors in the workflow bundle: WORKFLOW_BUNDLE_PATH is not used');
    return tracedWorkflowBundle(deps.tracing.workerInterceptors.workflowModules);
  }
  return prebuilt ? { codePath: prebuilt } : workflowBundle();
}

/** Writes the workflow bundle to `file` for WORKFLOW_BUNDLE_PATH (`npm run build:workflows`, and once per test run). */
export async function writeWorkflowBundle(file: string): Promise<void> {
  const { code } = await workflowBundle();
  await mkdir(path.dirname(file), { recursive: true });
  // Written beside and renamed, so a worker starting meanwhile never reads half a bundle.
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, code);
  await rename(partial, file);
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * Every schedule the worker owns: id, workflow, interval. Search stats every minute, not every five: on PGlite (no
 * autovacuum) a fresh install's tables have no statistics until its first run, and with an empty table's estimates
 * context requests took 2-3 times as long (npm start, 300 episodes, one at a time: per user 10.8 → 4.6 ms median,
 * namespace-wide 19.5 → 6.4 ms once analyzed). A run that finds no grown table costs a catalog query and the view's
 * refresh (13-18 ms at 100k episodes on a server).
 */
const SCHEDULES = [
  { scheduleId: RECONCILE_SCHEDULE_ID, workflowType: WORKFLOW_NAMES.reconcile, every: '1m' },
  { scheduleId: SEARCH_STATS_SCHEDULE_ID, workflowType: WORKFLOW_NAMES.refreshSearchStats, every: '1m' },
] as const;

/**
 * Creates the reconcile and search-stats schedules (every minute) unless they exist, and the nightly dream's. One that
 * exists with another interval (made by an earlier version) gets this one.
 */
export async function ensureSchedules(deps: Pick<Deps, 'temporal' | 'logger' | 'config'>): Promise<void> {
  for (const { scheduleId, workflowType, every } of SCHEDULES) {
    try {
      await withDeadline(deps.temporal, 10_000, () =>
        deps.temporal.client.schedule.create({
          scheduleId,
          spec: { intervals: [{ every }] },
          action: { type: 'startWorkflow', workflowType, taskQueue: deps.temporal.taskQueue, args: [] },
          policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' },
        }),
      );
      deps.logger.info({ scheduleId }, 'created schedule');
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await ensureInterval(deps, scheduleId, every);
    }
  }
  await ensureDreamSchedule(deps);
}

/** Gives an existing interval schedule the interval `every` if it has another. */
async function ensureInterval(deps: Pick<Deps, 'temporal' | 'logger'>, scheduleId: string, every: string): Promise<void> {
  const handle = deps.temporal.client.schedule.getHandle(scheduleId);
  const described = await withDeadline(deps.temporal, 10_000, () => handle.describe());
  const intervals = described.spec.intervals ?? [];
  if (intervals.length === 1 && intervals[0].every === msToNumber(every)) return;
  await withDeadline(deps.temporal, 10_000, () => handle.update((previous) => ({ ...previous, spec: { ...previous.spec, intervals: [{ every }] } })));
  deps.logger.info({ scheduleId, every }, 'updated schedule interval');
}

/**
 * The nightly `dream` (cron DREAM_CRON, UTC; over every namespace). Temporal
 * keeps a cron only as calendars, so the expression is also kept in the
 * schedule's note: a schedule whose note differs (an operator changed
 * DREAM_CRON) gets the new cron.
 */
export async function ensureDreamSchedule(deps: Pick<Deps, 'temporal' | 'logger' | 'config'>): Promise<void> {
  const cron = deps.config.DREAM_CRON;
  const note = `cron: ${cron}`;
  const spec = { cronExpressions: [cron] };
  try {
    await withDeadline(deps.temporal, 10_000, () =>
      deps.temporal.client.schedule.create({
        scheduleId: DREAM_SCHEDULE_ID,
        spec,
        action: { type: 'startWorkflow', workflowType: DREAM_WORKFLOW_TYPE, workflowId: DREAM_SCHEDULE_ID, taskQueue: deps.temporal.taskQueue, args: [] },
        // A night missed while Temporal was down is caught up within a few hours, once.
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '6h' },
        state: { note },
      }),
    );
    deps.logger.info({ scheduleId: DREAM_SCHEDULE_ID, cron }, 'created schedule');
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    const handle = deps.temporal.client.schedule.getHandle(DREAM_SCHEDULE_ID);
    const described = await withDeadline(deps.temporal, 10_000, () => handle.describe());
    if (described.state.note === note) return;
    await withDeadline(deps.temporal, 10_000, () => handle.update((previous) => ({ ...previous, spec, state: { ...previous.state, note } })));
    deps.logger.info({ scheduleId: DREAM_SCHEDULE_ID, cron }, 'updated schedule cron');
  }
}

/** Connects a worker to the task queue with every workflow and activity, and starts it. */
export async function startWorker(deps: Deps, options: StartWorkerOptions = {}): Promise<WorkerRuntime> {
  installRuntimeLogger(deps);
  const extractor = options.extractor ?? createExtractionProvider(deps.config, deps.logger);
  const activities = { ...createActivities({ ...deps, extractor }), ...(options.activityOverrides ?? {}) };
  // Before polling: ingestEpisode sets these search attributes (issue 15).
  await ensureSearchAttributesAtStart(deps, deps.config.TEMPORAL_NAMESPACE);
  const address = deps.temporal.connection.options.address;
  const tracing = deps.tracing;
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace: deps.config.TEMPORAL_NAMESPACE,
    taskQueue: deps.temporal.taskQueue,
    workflowBundle: await chooseWorkflowBundle(deps, options),
    activities,
    // OTEL_EXPORTER_OTLP_ENDPOINT: workflow and activity spans join the trace of the request that started the workflow.
    ...(tracing ? { interceptors: { activity: tracing.workerInterceptors.activity }, sinks: tracing.workerSinks } : {}),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions ?? 50,
    maxConcurrentLocalActivityExecutions: options.maxConcurrentLocalActivityExecutions ?? localActivityConcurrency(deps.config),
    // With local stages an extraction usually finishes in its first workflow task, which always
    // comes from the shared (non-sticky) queue: poll it with many more pollers than the default 2.
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 },
    nonStickyToStickyPollRatio: 0.6,
  });
  if (options.ensureSchedules ?? true) await ensureSchedules(deps);
  // Once per namespace: facts and review items stored under the earlier contradiction rule join their chains (issue 24).
  await rechainStoredHistory(deps).catch((err: unknown) => deps.logger.warn({ err }, 're-chaining stored history failed; the next worker start retries'));
  const finished = worker.run().finally(() => connection.close());
  return {
    worker,
    finished,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await finished;
    },
  };
}
