import { Counter, Gauge } from 'prom-client';
import type { Pool } from '../db/pool.js';
import { DatabaseHistogram } from './databaseHistogram.js';
import { DREAM_DURATION_BUCKETS, SnapshotLoader, STAGE_DURATION_BUCKETS, type DatabaseSnapshot } from './databaseSnapshot.js';
import type { Metrics } from './metrics.js';

const EPISODE_STATUSES = ['pending', 'extracting', 'extracted', 'failed', 'skipped'];
/** Snapshots are reused for this long: the whole-table counts cost about 0.15 s per 10k episodes (README), so they are paid at most once per typical scrape interval, however many scrapers ask. */
export const SNAPSHOT_MAX_AGE_MS = 15_000;
/** Each scrape query is cancelled past this. */
export const SCRAPE_STATEMENT_TIMEOUT_MS = 2_000;

/**
 * Families whose values live in the database (episodes, stage runs, model
 * usage, reviews, dream runs), each computed when scraped from one shared
 * snapshot: correct whichever process (API, worker) wrote the rows.
 */
export function registerDatabaseMetrics(metrics: Metrics, pool: Pool, onError?: (err: unknown) => void): SnapshotLoader {
  const loader = new SnapshotLoader(pool, { maxAgeMs: SNAPSHOT_MAX_AGE_MS, statementTimeoutMs: SCRAPE_STATEMENT_TIMEOUT_MS, onError });
  const registers = [metrics.databaseRegistry];

  /** A family refilled from the snapshot on every scrape (counters too: their totals are the table's). */
  function family<L extends string>(
    kind: 'gauge' | 'counter',
    name: string,
    help: string,
    labelNames: L[],
    fill: (s: DatabaseSnapshot, set: (labels: Partial<Record<L, string>>, value: number) => void) => void,
  ): void {
    async function collect(this: Gauge<L> | Counter<L>): Promise<void> {
      const snapshot = await loader.get();
      if (!snapshot) return;
      this.reset();
      fill(snapshot, (labels, value) => (this instanceof Gauge ? this.set(labels, value) : this.inc(labels, value)));
    }
    if (kind === 'gauge') new Gauge<L>({ name, help, labelNames, registers, collect });
    else new Counter<L>({ name, help, labelNames, registers, collect });
  }

  family('gauge', 'mnemo_episodes', 'Episodes by extraction status', ['status'], (s, set) => {
    for (const status of EPISODE_STATUSES) set({ status }, s.episodes.find((e) => e.status === status)?.n ?? 0);
  });
  family('gauge', 'mnemo_episode_oldest_pending_seconds', 'Age of the oldest episode still pending (0: none); reconcile starts any the API could not', [], (s, set) =>
    set({}, s.oldestPendingSeconds ?? 0),
  );
  family('gauge', 'mnemo_review_items_open', 'Undecided review items by kind (status open or escalated)', ['kind', 'status'], (s, set) => {
    for (const r of s.reviews) set({ kind: r.kind, status: r.status }, r.n);
  });
  family('counter', 'mnemo_stage_runs_total', 'Extraction stage attempts recorded in stage_run, by stage and outcome', ['stage', 'status'], (s, set) => {
    for (const r of s.stages) set({ stage: r.stage, status: r.status }, r.runs);
  });
  family('counter', 'mnemo_stage_retries_total', 'Stage attempts after the first (attempt > 1), by stage', ['stage'], (s, set) => {
    for (const [stage, rows] of byStage(s)) set({ stage }, sum(rows, (r) => r.retries));
  });
  family('counter', 'mnemo_model_calls_total', 'Model calls made by extraction stages', ['stage'], (s, set) => {
    for (const [stage, rows] of byStage(s)) set({ stage }, sum(rows, (r) => r.model_calls));
  });
  family('counter', 'mnemo_model_tokens_total', 'Model tokens of extraction stages (direction: in = prompt, out = completion)', ['stage', 'direction'], (s, set) => {
    for (const [stage, rows] of byStage(s)) {
      set({ stage, direction: 'in' }, sum(rows, (r) => r.tokens_in));
      set({ stage, direction: 'out' }, sum(rows, (r) => r.tokens_out));
    }
  });
  family('gauge', 'mnemo_dream_runs', 'Dream runs by status', ['status'], (s, set) => {
    for (const r of s.dreams) set({ status: r.status }, r.n);
  });
  family('gauge', 'mnemo_dream_last_run_duration_seconds', 'Duration of the most recently finished dream run', [], (s, set) => {
    if (s.lastDreamSeconds !== null) set({}, s.lastDreamSeconds);
  });
  family('gauge', 'mnemo_metrics_database_load_seconds', 'Time the last database snapshot for /metrics took', [], (s, set) => set({}, s.loadSeconds));
  new Gauge({
    name: 'mnemo_metrics_database_errors',
    help: 'Database snapshots for /metrics that failed (e.g. past the statement timeout) since this process started',
    registers,
    collect(this: Gauge) {
      this.set(loader.failures);
    },
  });

  new DatabaseHistogram(
    { name: 'mnemo_stage_duration_seconds', help: 'Duration of finished extraction stage attempts, by stage', labelNames: ['stage'], buckets: STAGE_DURATION_BUCKETS, registry: metrics.databaseRegistry },
    async () => {
      const snapshot = await loader.get();
      return [...byStage(snapshot)].map(([stage, rows]) => ({
        labels: { stage },
        counts: STAGE_DURATION_BUCKETS.map((_, i) => sum(rows, (r) => r.buckets[i] ?? 0)),
        sum: sum(rows, (r) => r.duration_ms_sum) / 1000,
        count: sum(rows, (r) => r.finished),
      }));
    },
  );
  new DatabaseHistogram(
    { name: 'mnemo_dream_run_duration_seconds', help: 'Duration of finished dream runs', labelNames: [], buckets: DREAM_DURATION_BUCKETS, registry: metrics.databaseRegistry },
    async () => {
      const snapshot = await loader.get();
      return snapshot ? [{ labels: {}, counts: snapshot.dreamDurations.buckets, sum: snapshot.dreamDurations.sum, count: snapshot.dreamDurations.count }] : [];
    },
  );
  return loader;
}

function byStage(snapshot: DatabaseSnapshot | null): Map<string, DatabaseSnapshot['stages']> {
  const groups = new Map<string, DatabaseSnapshot['stages']>();
  for (const row of snapshot?.stages ?? []) groups.set(row.stage, [...(groups.get(row.stage) ?? []), row]);
  return groups;
}

function sum<T>(rows: T[], pick: (row: T) => number): number {
  return rows.reduce((total, row) => total + pick(row), 0);
}
