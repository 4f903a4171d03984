// The chaos run (`npm run test:chaos`, short form in test/chaos.test.ts):
// open-loop writes and session turns against a stack of separate processes
// while, one after another, the worker and the API are SIGKILLed and
// restarted, Temporal is stopped and started again on its database file, and
// PostgreSQL is restarted. Then it waits for quiet and checks the database;
// last, the same stored inputs are extracted once on a clean stack and the
// two graphs compared (a duplicated fact or entity shows as an excess).
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runChaosLoad, type LoadReport } from './chaosLoad.js';
import { checkStore, compareGraphs, graphSnapshot, statusCounts, storedInputs, waitForQuiet, withClient, type GraphComparison, type StoreCheck } from './chaosVerify.js';
import { STACK_KEY, startFaultStack, type FaultStack } from './faultStack.js';
import { ROOT } from './serviceProcess.js';

export interface ChaosOptions {
  writesPerSecond: number;
  turnsPerSecond: number;
  seconds: number;
  namespaces: number;
  /** How long Temporal stays down. */
  temporalDownSeconds: number;
  /** How long the worker stays down after its SIGKILL. */
  workerDownSeconds: number;
  /** Longest wait for every episode to be extracted once the load is over (reconcile runs every minute). */
  quietTimeoutSeconds: number;
  /** A write refused or left unanswered is retried (same Idempotency-Key) until this long after the load ends. */
  retryWindowSeconds: number;
  logDir?: string;
  log?: (line: string) => void;
}

export const FULL_CHAOS: ChaosOptions = { writesPerSecond: 20, turnsPerSecond: 1, seconds: 180, namespaces: 4, temporalDownSeconds: 20, workerDownSeconds: 3, quietTimeoutSeconds: 480, retryWindowSeconds: 30 };
// The short form runs in every `npm test`: 4 writes a second still keep writes in flight through every fault (the
// shortest, a 2 s worker kill, meets 8), and the clean run that replays them all extracts half as many (200 episodes,
// not 400: about 30 s of the run's 60 s there, and a tenth of the embedded pass's CPU went to this file).
export const SHORT_CHAOS: ChaosOptions = { writesPerSecond: 4, turnsPerSecond: 1, seconds: 50, namespaces: 3, temporalDownSeconds: 10, workerDownSeconds: 2, quietTimeoutSeconds: 150, retryWindowSeconds: 15 };

export interface FaultRecord {
  kind: 'worker_sigkill' | 'api_sigkill' | 'temporal_stop' | 'postgres_restart';
  at_s: number;
  down_s: number;
}

export interface ChaosResult {
  acknowledged: number;
  refused: number;
  lost: number;
  stuck: number;
  duplicates: number;
  faults_injected: number;
  seconds: number;
  detail: {
    settings: ChaosOptions & { logDir?: undefined; log?: undefined };
    writes: { logical: number; unknown: number; errors: number; retried: number; refused_responses: number; refused_without_retry_after: number; answers_5xx_not_503: number };
    turns: { sent: number; acknowledged: number; lost: number };
    faults: FaultRecord[];
    quiet_after_s: number;
    statuses: Record<string, number>;
    refused_but_stored: number;
    duplicated_writes: number;
    lost_ids: string[];
    audit: StoreCheck['audit'];
    audit_missing: number;
    graph: Omit<GraphComparison, 'onlyInChaos' | 'onlyInClean'> & { only_in_chaos: string[]; only_in_clean: string[]; clean_statuses: Record<string, number> };
    unexpected_exits: { api: number; worker: number };
    /** Where the run's time went (s): stack start, load with its retry window, wait for quiet, the clean run and compare. */
    phases_s: { startup: number; load: number; quiet: number; clean_run: number };
    ack_latency_ms: { p50: number; p95: number; max: number };
  };
}

const elapsed = (start: number) => Math.round((performance.now() - start) / 100) / 10;

/** The four faults, one after another, spread over the load. */
async function injectFaults(stack: FaultStack, options: ChaosOptions, start: number, log: (line: string) => void): Promise<FaultRecord[]> {
  const faults: FaultRecord[] = [];
  const at = (fraction: number) => sleep(Math.max(0, start + options.seconds * 1000 * fraction - performance.now()));
  const record = async (kind: FaultRecord['kind'], hurt: () => Promise<void>, heal: () => Promise<void>, downSeconds: number) => {
    const t0 = performance.now();
    log(`fault ${kind} at ${elapsed(start)} s`);
    await hurt();
    await sleep(downSeconds * 1000);
    await heal();
    faults.push({ kind, at_s: Math.round((t0 - start) / 100) / 10, down_s: Math.round((performance.now() - t0) / 100) / 10 });
    log(`healed ${kind} after ${faults.at(-1)!.down_s} s`);
  };
  await at(0.12);
  await record('worker_sigkill', () => stack.worker.kill(), () => stack.worker.start(), options.workerDownSeconds);
  await at(0.28);
  await record('api_sigkill', () => stack.api.kill(), () => stack.api.start(), 0);
  await at(0.42);
  await record('temporal_stop', () => stack.temporal.stop(), () => stack.temporal.start(), options.temporalDownSeconds);
  await at(0.72);
  await record('postgres_restart', () => stack.pg.restart(), async () => undefined, 0);
  return faults;
}

function percentile(samples: number[], p: number): number {
  if (!samples.length) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
}

/** Writes the chaos database's stored inputs to a clean stack, lets them be extracted undisturbed, and snapshots its graph. */
async function extractUndisturbed(chaos: FaultStack, logDir: string, log: (line: string) => void) {
  const inputs = await withClient(chaos.databaseUrl, storedInputs);
  const clean = await startFaultStack({ database: 'mnemo_clean', logDir, pg: chaos.pg });
  try {
    for (let i = 0; i < inputs.length; i += 50) {
      const res = await fetch(`${clean.apiUrl}/v1/memories/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${STACK_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ memories: inputs.slice(i, i + 50) }),
      });
      if (res.status !== 202) throw new Error(`clean replay: POST /v1/memories/batch answered ${res.status}: ${await res.text()}`);
    }
    log(`clean run: ${inputs.length} episodes replayed; waiting for extraction`);
    // Undisturbed extraction runs at several episodes a second even on a busy 2-core host.
    const timeoutSeconds = Math.max(300, Math.ceil(inputs.length / 4));
    const quiet = await waitForQuiet(clean.databaseUrl, timeoutSeconds);
    if (!quiet.quiet) throw new Error(`clean run: extraction did not finish within ${timeoutSeconds} s`);
    return await withClient(clean.databaseUrl, async (db) => ({ snapshot: await graphSnapshot(db), statuses: await statusCounts(db) }));
  } finally {
    await clean.stop();
  }
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[chaos] ${line}\n`));
  const logDir = options.logDir ?? path.join(ROOT, 'bench/results/logs');
  const runStart = performance.now();
  const stack = await startFaultStack({ database: 'mnemo_chaos', logDir });
  const phases = { startup: elapsed(runStart), load: 0, quiet: 0, clean_run: 0 };
  try {
    log(`stack up: api ${stack.apiUrl}, postgres :${stack.pg.port}, temporal ${stack.temporal.address}`);
    const start = performance.now();
    let faultsDone = false;
    const [load, faults] = await Promise.all([
      runChaosLoad({
        apiUrl: stack.apiUrl,
        key: STACK_KEY,
        writesPerSecond: options.writesPerSecond,
        turnsPerSecond: options.turnsPerSecond,
        seconds: options.seconds,
        namespaces: options.namespaces,
        retryWindowSeconds: options.retryWindowSeconds,
        keepGoing: () => !faultsDone,
      }),
      // A slow restart on a busy host pushes the later faults back: the load waits for them, plus a few seconds of recovery.
      injectFaults(stack, options, start, log).then(async (done) => {
        await sleep(5_000);
        faultsDone = true;
        return done;
      }),
    ]);
    phases.load = elapsed(start);
    log(`load done after ${phases.load} s; waiting for quiet`);
    const quiet = await waitForQuiet(stack.databaseUrl, options.quietTimeoutSeconds, (c) => log(`statuses ${JSON.stringify(c)}`));
    const store = await withClient(stack.databaseUrl, (db) => checkStore(db, load));
    const chaosGraph = await withClient(stack.databaseUrl, graphSnapshot);
    phases.quiet = Math.round(quiet.seconds);
    const unexpectedExits = { api: stack.api.unexpectedExits.length, worker: stack.worker.unexpectedExits.length };
    await stack.stopServices();
    const cleanStart = performance.now();
    const clean = await extractUndisturbed(stack, logDir, log);
    phases.clean_run = elapsed(cleanStart);
    const graph = compareGraphs(chaosGraph, clean.snapshot);
    return summarize(options, load, faults, store, graph, clean.statuses, quiet.seconds, unexpectedExits, phases, runStart);
  } finally {
    await stack.stop();
  }
}

function summarize(
  options: ChaosOptions,
  load: LoadReport,
  faults: FaultRecord[],
  store: StoreCheck,
  graph: GraphComparison,
  cleanStatuses: Record<string, number>,
  quietSeconds: number,
  unexpectedExits: { api: number; worker: number },
  phases: ChaosResult['detail']['phases_s'],
  runStart: number,
): ChaosResult {
  const count = (outcome: string) => load.writes.filter((w) => w.outcome === outcome).length;
  const statuses = load.writes.flatMap((w) => w.statuses);
  const acknowledgedTurns = load.turns.filter((t) => t.status === 202).length;
  const auditMissing = Object.values(store.audit).reduce((a, b) => a + b, 0);
  const { onlyInChaos, onlyInClean, ...counts } = graph;
  const { log: _log, logDir: _logDir, ...settings } = options;
  return {
    acknowledged: count('acknowledged'),
    refused: count('refused'),
    lost: store.lost.length + store.lostTurns + store.refusedButStored,
    stuck: store.stuck,
    duplicates: graph.duplicateFacts + graph.duplicateEntities + store.duplicatedWrites,
    faults_injected: new Set(faults.map((f) => f.kind)).size,
    seconds: Math.round((performance.now() - runStart) / 1000),
    detail: {
      settings,
      writes: {
        logical: load.writes.length,
        unknown: count('unknown'),
        errors: count('error'),
        retried: load.writes.filter((w) => w.attempts > 1).length,
        refused_responses: statuses.filter((s) => s === 503).length,
        refused_without_retry_after: load.refusedWithoutRetryAfter,
        answers_5xx_not_503: statuses.filter((s) => s >= 500 && s !== 503).length,
      },
      turns: { sent: load.turns.length, acknowledged: acknowledgedTurns, lost: store.lostTurns },
      faults,
      quiet_after_s: Math.round(quietSeconds),
      statuses: store.statuses,
      refused_but_stored: store.refusedButStored,
      duplicated_writes: store.duplicatedWrites,
      lost_ids: store.lost.slice(0, 20),
      audit: store.audit,
      audit_missing: auditMissing,
      graph: { ...counts, only_in_chaos: onlyInChaos.slice(0, 20), only_in_clean: onlyInClean.slice(0, 20), clean_statuses: cleanStatuses },
      unexpected_exits: unexpectedExits,
      phases_s: phases,
      ack_latency_ms: { p50: percentile(load.latenciesMs, 50), p95: percentile(load.latenciesMs, 95), max: percentile(load.latenciesMs, 100) },
    },
  };
}
