import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What `/metrics` reads from the API's read admission gate (api/admissionGate.ts). */
export interface ReadGateView {
  readonly capacity: number;
  readonly inProgress: number;
  readonly waiting: number;
}

/** What `/metrics` reads from the write path's extraction backlog (core/memories/backlog.ts). */
export interface BacklogView {
  readonly estimate: number;
}

export type RefusalKind = 'read' | 'write';

/** Seconds: a read answers in milliseconds, a slow context call in about a second. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * One process's Prometheus registries (built once in buildDeps, passed in;
 * prom-client's global registry is never used, so two apps in one process never
 * share counters): `registry` holds what this process records as it serves,
 * `databaseRegistry` the values kept in the database (registerDatabaseMetrics,
 * computed at scrape time). Apart, because with several API processes
 * (API_PROCESSES) the first is summed over the processes and the second is the
 * same in each.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly databaseRegistry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly refusals: Counter<'kind'>;
  private readGate: ReadGateView | undefined;
  private backlog: BacklogView | undefined;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.httpDuration = new Histogram({
      name: 'mnemo_http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.refusals = new Counter({
      name: 'mnemo_overload_refusals_total',
      help: 'Requests refused with 503 and Retry-After by the overload guard (read: queue time bound, write: pending episodes bound)',
      labelNames: ['kind'],
      registers,
    });
    for (const kind of ['read', 'write'] as const) this.refusals.inc({ kind }, 0);
    // Gauges read at scrape time from the live objects, so they are never stale.
    const gauge = (name: string, help: string, read: () => number | undefined, aggregator: 'sum' | 'max' = 'sum') =>
      new Gauge({
        name,
        help,
        registers,
        aggregator,
        collect(this: Gauge) {
          const value = read();
          if (value !== undefined) this.set(value);
        },
      });
    gauge('mnemo_read_gate_in_flight', 'Reads being served now (admitted by the read gate)', () => this.readGate?.inProgress);
    gauge('mnemo_read_gate_queue_length', 'Reads waiting for their turn in the read gate', () => this.readGate?.waiting);
    gauge('mnemo_read_gate_capacity', 'Reads served at once (READ_CONCURRENCY)', () => this.readGate?.capacity);
    gauge('mnemo_write_backlog_episodes', "Episodes pending or extracting as this API process last counted them (the write bound's input)", () => this.backlog?.estimate, 'max'); // every process counts the same table
  }

  /** The read gate of the app being served (the latest one when an app is built twice). */
  watchReadGate(gate: ReadGateView): void {
    this.readGate = gate;
  }

  watchBacklog(backlog: BacklogView): void {
    this.backlog = backlog;
  }

  refused(kind: RefusalKind): void {
    this.refusals.inc({ kind });
  }

  /** The exposition text; `processText` replaces this process's own families (the sum over API processes, api/cluster/). */
  async text(processText?: () => Promise<string>): Promise<string> {
    const [own, database] = await Promise.all([processText ? processText() : this.registry.metrics(), this.databaseRegistry.metrics()]);
    return `${own.trimEnd()}\n${database}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
