import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { PROCESS_METRICS_TIMEOUT_MS, processMetricsReply, type ProcessMetricsRequest } from './messages.js';

/** An API process as the primary sees it (node:cluster's Worker). */
export interface ApiProcessHandle {
  readonly id: number;
  isConnected(): boolean;
  send(message: unknown): boolean;
}

type ProcessMetrics = Array<MetricObjectWithValues<MetricValue<string>>>;

/**
 * The primary's half of a scrape: asks every connected API process for its own
 * families and sums them with prom-client's aggregation (counters and
 * histograms add up; each family's `aggregator` says otherwise). A process that
 * does not answer in time is left out, and the text says how many answered.
 */
export class MetricsSum {
  private nextId = 0;
  private readonly waiting = new Map<number, { expected: number; replies: ProcessMetrics[]; done: () => void }>();

  constructor(private readonly timeoutMs = PROCESS_METRICS_TIMEOUT_MS) {}

  /** Feed every message an API process sends; true when it was a reply to one of ours. */
  onMessage(raw: unknown): boolean {
    const reply = processMetricsReply.safeParse(raw);
    if (!reply.success) return false;
    const round = this.waiting.get(reply.data.id);
    if (!round) return true; // late: its round already answered
    round.replies.push(reply.data.metrics);
    if (round.replies.length >= round.expected) round.done();
    return true;
  }

  async collect(processes: readonly ApiProcessHandle[]): Promise<string> {
    const id = this.nextId++;
    const connected = processes.filter((p) => p.isConnected());
    const replies: ProcessMetrics[] = [];
    const request: ProcessMetricsRequest = { type: 'mnemo:process-metrics-request', id };
    // Replies arrive on later turns of the event loop, so counting the sends first loses none.
    const expected = connected.filter((p) => p.send(request)).length;
    if (expected > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.timeoutMs);
        this.waiting.set(id, { expected, replies, done: () => (clearTimeout(timer), resolve()) });
      });
    }
    this.waiting.delete(id);
    const text = replies.length ? await AggregatorRegistry.aggregate(replies).metrics() : '';
    return `# mnemo: the sum over ${replies.length} of ${connected.length} API processes\n${text}`;
  }
}
