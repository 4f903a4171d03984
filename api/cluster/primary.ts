import cluster, { type Worker } from 'node:cluster';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../core/config/config.js';
import { onShutdownSignal } from '../../core/embedded/lifecycle.js';
import type { Logger } from '../../core/logger.js';
import { clusterMetricsRequest, type ClusterMetricsReply } from './messages.js';
import { MetricsSum } from './metricsSum.js';
import { RestartPolicy } from './restartPolicy.js';

/** A process that dies is started again after this pause (RestartPolicy says when not). */
const RESTART_DELAY_MS = 1_000;
/** On shutdown, processes still running after this are killed. */
const STOP_GRACE_MS = 20_000;

/**
 * `npm run api` with API_PROCESSES > 1: this process serves nothing itself. It
 * starts the API processes (node:cluster: they share the port and accept
 * connections from it themselves), starts again one that dies (RestartPolicy),
 * stops them all on SIGTERM or SIGINT, and sums their `/metrics`. A process
 * that exits before any has listened means the configuration or the services
 * are wrong: all stop and this exits 1.
 * Migrations (MIGRATE_ON_START) ran once before, in the caller.
 */
export async function runApiPrimary(config: Config, parentLogger: Logger): Promise<void> {
  const count = config.API_PROCESSES;
  const logger = parentLogger.child({ role: 'primary' });
  const metricsSum = new MetricsSum();
  const listened = new WeakSet<Worker>();
  const restartPolicy = new RestartPolicy();
  let stopping = false;

  const processes = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);

  async function stopAll(): Promise<void> {
    stopping = true;
    const running = processes().filter((w) => !w.isDead());
    const exited = running.map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
    for (const w of running) w.process.kill('SIGTERM');
    const killer = setTimeout(() => running.forEach((w) => w.isDead() || w.process.kill('SIGKILL')), STOP_GRACE_MS);
    await Promise.all(exited);
    clearTimeout(killer);
  }

  function fail(message: string, fields: Record<string, unknown>): void {
    if (stopping) return;
    logger.error(fields, message);
    void stopAll().finally(() => process.exit(1));
  }

  function start(): void {
    // Migrations already ran here, once; the API processes must not race to run them again.
    const worker = cluster.fork({ MIGRATE_ON_START: 'false' });
    worker.once('listening', () => {
      listened.add(worker);
      restartPolicy.onListening();
    });
    worker.on('message', (raw: unknown) => {
      if (metricsSum.onMessage(raw)) return;
      const request = clusterMetricsRequest.safeParse(raw);
      if (!request.success) return;
      const reply = (answer: { text: string } | { error: string }) =>
        worker.isConnected() && worker.send({ type: 'mnemo:cluster-metrics-reply', id: request.data.id, ...answer } satisfies ClusterMetricsReply);
      void metricsSum.collect(processes()).then(
        (text) => reply({ text }),
        (err: unknown) => reply({ error: (err as Error).message }),
      );
    });
    worker.once('exit', (code, signal) => {
      if (stopping) return;
      const fields = { pid: worker.process.pid, code, signal };
      const verdict = restartPolicy.onExit(Date.now());
      if (verdict.action === 'stop') return fail(verdict.reason, fields);
      logger.warn({ ...fields, hadListened: listened.has(worker) }, 'an API process exited; starting another');
      void sleep(RESTART_DELAY_MS).then(() => stopping || start());
    });
  }

  // Each process accepts its connections itself, unless NODE_CLUSTER_SCHED_POLICY says otherwise. Handed out by
  // the primary (Node's default on Linux), every new connection waits for a hop through this process: at 1,000
  // writes/s offered (bench:write, no worker) ack p99 136-2,356 ms, accepted directly 99-510 ms (README).
  if (!process.env.NODE_CLUSTER_SCHED_POLICY) cluster.schedulingPolicy = cluster.SCHED_NONE;
  onShutdownSignal(logger, stopAll);
  for (let i = 0; i < count; i++) start();
  await new Promise<void>((resolve) => {
    const check = () => {
      if (processes().filter((w) => listened.has(w)).length < count) return;
      cluster.off('listening', check);
      resolve();
    };
    cluster.on('listening', check);
  });
  logger.info({ url: `http://${config.HOST}:${config.PORT}`, processes: count }, 'API listening');
}
