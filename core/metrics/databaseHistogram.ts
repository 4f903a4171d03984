import { Histogram, type Registry } from 'prom-client';

/** One labelled series of a histogram counted in SQL: cumulative counts per upper bound, their sum and total. */
export interface HistogramSeries<L extends string> {
  labels: Record<L, string>;
  /** counts[i]: observations <= buckets[i] (cumulative, as Prometheus expects). */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram whose buckets are counted by the database at scrape
 * time (rows of every process, not this one's observations): `load` answers
 * the series; prom-client's Histogram only adds the exposition format.
 */
export class DatabaseHistogram<L extends string> extends Histogram<L> {
  constructor(
    private readonly spec: { name: string; help: string; labelNames: readonly L[]; buckets: number[]; registry: Registry },
    private readonly load: () => Promise<HistogramSeries<L>[]>,
  ) {
    super({ name: spec.name, help: spec.help, labelNames: spec.labelNames, buckets: spec.buckets, registers: [spec.registry] });
  }

  override async get(): ReturnType<Histogram<L>['get']> {
    const series = await this.load();
    const values = series.flatMap(({ labels, counts, sum, count }) => [
      ...this.spec.buckets.map((le, i) => ({ metricName: `${this.spec.name}_bucket`, labels: { ...labels, le } as Partial<Record<L, string | number>>, value: counts[i] ?? 0 })),
      { metricName: `${this.spec.name}_bucket`, labels: { ...labels, le: '+Inf' } as Partial<Record<L, string | number>>, value: count },
      { metricName: `${this.spec.name}_sum`, labels, value: sum },
      { metricName: `${this.spec.name}_count`, labels, value: count },
    ]);
    // prom-client types `type` as a numeric enum, but renders (and expects) the string: hence the cast.
    return { name: this.spec.name, help: this.spec.help, type: 'histogram', aggregator: 'sum', values } as unknown as Awaited<ReturnType<Histogram<L>['get']>>;
  }

  /** What the registry renders: prom-client calls this (untyped) method rather than get() for the text format. */
  getForPromString(): ReturnType<Histogram<L>['get']> {
    return this.get();
  }
}
