// `npm run bench:temporal-floor -- [--workflows 500] [--activities 0,1,8] [--payload 2000]`
//
// What one workflow per episode costs in Temporal before any of Mnemo's work:
// a workflow of nothing but `activities` local activities in a row (none, one,
// or eight like an extraction: beginExtraction and the seven stages), each
// passing on a payload of `payload` bytes, on the same Temporal dev server
// `npm start` runs (core/embedded/temporalServer.ts: SQLite in WAL mode) and a
// worker configured like Mnemo's, in a process of its own. The workflows are
// started by 8 concurrent starters (as reconcile does) and run from the task
// queue's backlog, as extraction does under load. CPU milliseconds per
// workflow of the worker, the Temporal server and the starter come from /proc.
// Issue 19 asks Temporal's share of an episode to be at most 15 ms: this is
// the part of that share no change to Mnemo's workflow can remove.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../core/config/config.js';
import { freePort } from '../core/embedded/ports.js';
import { startEmbeddedServices } from '../core/embedded/stack.js';
import { createLogger } from '../core/logger.js';
import { ownCpuMs, treeCpuMs } from './lib/procCpu.js';
import { round2 } from './lib/stats.js';
import { parseArgs, ROOT, writeResult } from './support/benchStack.js';

const args = parseArgs();
const workflows = Number(args.get('workflows') ?? 500);
const activityCounts = (args.get('activities') ?? '0,1,8').split(',').map(Number);
const payloadBytes = Number(args.get('payload') ?? 2000);
const STARTERS = 8;
const TASK_QUEUE = 'temporal-floor';
const log = (m: string) => console.log(`[bench:temporal-floor] ${m}`);

function startWorker(address: string): Promise<ChildProcess> {
  const child = fork(path.join(ROOT, 'bench/floor/worker.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NODE_OPTIONS: '', FLOOR_TEMPORAL_ADDRESS: address, FLOOR_TASK_QUEUE: TASK_QUEUE },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`floor worker exited (${code}) before polling`)));
  });
}

/** Starts `count` floor workflows (STARTERS at a time) and resolves once every one has completed. */
async function runBatch(client: Client, prefix: string, count: number, activities: number): Promise<void> {
  let next = 0;
  const starter = async () => {
    while (next < count) {
      const n = next++;
      await client.workflow.start('floorWorkflow', { taskQueue: TASK_QUEUE, workflowId: `${prefix}-${n}`, args: [activities, payloadBytes] });
    }
  };
  await Promise.all(Array.from({ length: STARTERS }, starter));
  // Completion is read from visibility (a count every 250 ms), not by waiting on each result: nobody waits on an
  // extraction's result either, and a long poll per workflow would add its own cost to the server's.
  const query = `WorkflowId STARTS_WITH "${prefix}-" AND ExecutionStatus = "Completed"`;
  for (;;) {
    const { count: done } = await client.workflow.count(query);
    if (done >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-floor-'));
  // A Temporal dev server only (DATABASE_URL set: no PGlite), started exactly as `npm start` starts it.
  const config = loadConfig({ DATABASE_URL: 'postgresql://unused@127.0.0.1/unused', DATA_DIR: dataDir, LOG_LEVEL: 'warn', TEMPORAL_UI_PORT: String(await freePort()) });
  const services = await startEmbeddedServices(config, createLogger(config));
  const temporalPid = services.temporal?.pid ?? null;
  const address = services.config.TEMPORAL_ADDRESS;
  const worker = await startWorker(address);
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const runs = [];
  try {
    for (const activities of activityCounts) {
      log(`${activities} local activities: warm-up, then ${workflows} workflows`);
      await runBatch(client, `warm-${activities}`, 50, activities);
      const before = { worker: treeCpuMs(worker.pid!), temporal: temporalPid === null ? null : treeCpuMs(temporalPid), starter: ownCpuMs() };
      const started = performance.now();
      await runBatch(client, `floor-${activities}`, workflows, activities);
      const seconds = (performance.now() - started) / 1000;
      const after = { worker: treeCpuMs(worker.pid!), temporal: temporalPid === null ? null : treeCpuMs(temporalPid), starter: ownCpuMs() };
      const per = (a: number | null, b: number | null) => (a === null || b === null ? null : round2((b - a) / workflows));
      const cpu = { worker: per(before.worker, after.worker), temporal: per(before.temporal, after.temporal), starter: per(before.starter, after.starter) };
      const run = {
        activities,
        workflows,
        seconds: round2(seconds),
        workflows_per_s: round2(workflows / seconds),
        cpu_ms_per_workflow: { ...cpu, worker_and_temporal: cpu.worker === null || cpu.temporal === null ? null : round2(cpu.worker + cpu.temporal) },
      };
      log(JSON.stringify(run));
      runs.push(run);
    }
  } finally {
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker.once('exit', resolve));
    await connection.close();
    await services.stop();
  }
  const result = { payload_bytes: payloadBytes, starters: STARTERS, runs, machine: { cores: os.cpus().length } };
  console.log(JSON.stringify(result, null, 2));
  log(`written ${writeResult('temporal-floor', result)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
