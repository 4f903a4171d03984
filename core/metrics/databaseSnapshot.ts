import { withTransaction, type Pool, type PoolClient } from '../db/pool.js';

/** Upper bounds (seconds) of the stage duration histogram: heuristic stages take milliseconds, model calls seconds. */
export const STAGE_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Upper bounds (seconds) of the dream run duration histogram. */
export const DREAM_DURATION_BUCKETS = [1, 5, 15, 60, 300, 900, 1800, 3600, 10800];

export interface StageRow {
  stage: string;
  status: string;
  runs: number;
  retries: number;
  model_calls: number;
  tokens_in: number;
  tokens_out: number;
  finished: number;
  duration_ms_sum: number;
  /** Finished attempts at or under each STAGE_DURATION_BUCKETS bound. */
  buckets: number[];
}

export interface DatabaseSnapshot {
  episodes: Array<{ status: string; n: number }>;
  oldestPendingSeconds: number | null;
  reviews: Array<{ kind: string; status: string; n: number }>;
  stages: StageRow[];
  dreams: Array<{ status: string; n: number }>;
  dreamDurations: { buckets: number[]; sum: number; count: number };
  lastDreamSeconds: number | null;
  /** How long the queries took (the cost of a scrape, watched in /metrics itself). */
  loadSeconds: number;
}

/** Cumulative `count(*) FILTER (WHERE <column> <= bound)` columns as one int array; bounds are constants, not input. */
function bucketArray(column: string, boundsMs: number[]): string {
  return `ARRAY[${boundsMs.map((b) => `count(*) FILTER (WHERE ${column} <= ${Math.round(b)})`).join(', ')}]::int[]`;
}

const int = (v: unknown) => Number(v ?? 0);

async function query(db: PoolClient): Promise<Omit<DatabaseSnapshot, 'loadSeconds'>> {
  const episodes = await db.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM episode GROUP BY status');
  // Served by episode_status_idx (partial, pending/extracting/failed): how far behind extraction (and reconcile) is.
  const oldest = await db.query<{ age: number | null }>(
    `SELECT extract(epoch FROM now() - min(recorded_at))::float8 AS age FROM episode WHERE status = 'pending'`,
  );
  const reviews = await db.query<{ kind: string; status: string; n: string }>(
    `SELECT kind, status, count(*) AS n FROM review_item WHERE status IN ('open', 'escalated') GROUP BY kind, status`,
  );
  const stages = await db.query<Record<string, unknown>>(
    `SELECT stage, status, count(*) AS runs, count(*) FILTER (WHERE attempt > 1) AS retries,
            sum(model_calls) AS model_calls, sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out,
            count(duration_ms) AS finished, coalesce(sum(duration_ms), 0) AS duration_ms_sum,
            ${bucketArray('duration_ms', STAGE_DURATION_BUCKETS.map((s) => s * 1000))} AS buckets
       FROM stage_run GROUP BY stage, status`,
  );
  const dreams = await db.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM dream_run GROUP BY status');
  const durations = await db.query<{ buckets: number[]; sum: number; count: string; last: number | null }>(
    `WITH d AS (SELECT extract(epoch FROM finished_at - started_at)::float8 * 1000 AS ms, finished_at FROM dream_run WHERE finished_at IS NOT NULL)
     SELECT ${bucketArray('ms', DREAM_DURATION_BUCKETS.map((s) => s * 1000))} AS buckets, coalesce(sum(ms), 0) / 1000 AS sum, count(*) AS count,
            (SELECT ms / 1000 FROM d ORDER BY finished_at DESC LIMIT 1) AS last
       FROM d`,
  );
  const dream = durations.rows[0];
  return {
    episodes: episodes.rows.map((r) => ({ status: r.status, n: int(r.n) })),
    oldestPendingSeconds: oldest.rows[0]?.age ?? null,
    reviews: reviews.rows.map((r) => ({ kind: r.kind, status: r.status, n: int(r.n) })),
    stages: stages.rows.map((r) => ({
      stage: String(r.stage),
      status: String(r.status),
      runs: int(r.runs),
      retries: int(r.retries),
      model_calls: int(r.model_calls),
      tokens_in: int(r.tokens_in),
      tokens_out: int(r.tokens_out),
      finished: int(r.finished),
      duration_ms_sum: int(r.duration_ms_sum),
      buckets: (r.buckets as number[]).map(int),
    })),
    dreams: dreams.rows.map((r) => ({ status: r.status, n: int(r.n) })),
    dreamDurations: { buckets: dream.buckets.map(int), sum: Number(dream.sum), count: int(dream.count) },
    lastDreamSeconds: dream.last === null ? null : Number(dream.last),
  };
}

export interface SnapshotOptions {
  /** A snapshot younger than this is reused: several scrapers (or one scrape's many families) cost one set of queries. */
  maxAgeMs: number;
  /** statement_timeout of each query: a scrape never holds a connection for long. */
  statementTimeoutMs: number;
  clock?: () => number;
  onError?: (err: unknown) => void;
}

/**
 * The database's share of `/metrics`, loaded on demand at scrape time in one
 * read-only transaction (so every process reports the same values, whichever
 * wrote the rows). Counts are whole-table aggregates: exact, at the price of a
 * scan of `episode` and `stage_run` at most once per `maxAgeMs` (see README).
 * A failed load keeps the previous snapshot.
 */
export class SnapshotLoader {
  private last: DatabaseSnapshot | null = null;
  private loadedAt = -Infinity;
  private loading: Promise<DatabaseSnapshot | null> | null = null;
  /** Loads that failed (timeouts included), for `mnemo_metrics_database_errors_total`. */
  failures = 0;

  constructor(
    private readonly pool: Pool,
    private readonly options: SnapshotOptions,
  ) {}

  get(): Promise<DatabaseSnapshot | null> {
    const clock = this.options.clock ?? (() => performance.now());
    if (this.last && clock() - this.loadedAt < this.options.maxAgeMs) return Promise.resolve(this.last);
    this.loading ??= (async () => {
      const startedAt = clock();
      try {
        const data = await withTransaction(this.pool, async (db) => {
          await db.query(`SET TRANSACTION READ ONLY`);
          await db.query(`SET LOCAL statement_timeout = ${Math.round(this.options.statementTimeoutMs)}`);
          return query(db);
        });
        this.last = { ...data, loadSeconds: (clock() - startedAt) / 1000 };
        this.loadedAt = clock();
      } catch (err) {
        this.failures++;
        this.options.onError?.(err);
      } finally {
        this.loading = null;
      }
      return this.last;
    })();
    return this.loading;
  }
}
