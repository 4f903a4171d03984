import type { Metrics } from '../../core/metrics/metrics.js';
import { CLUSTER_METRICS_TIMEOUT_MS, clusterMetricsReply, processMetricsRequest, type ClusterMetricsRequest, type ProcessMetricsReply } from './messages.js';

/** The part of `process` an API process started by the primary talks through (its IPC channel). */
export interface ClusterChannel {
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  send?(message: unknown): boolean;
  /** False once the primary is gone: a send then would raise an error event on the process. */
  readonly connected?: boolean;
}

/**
 * `/metrics` in one of several API processes (API_PROCESSES > 1): answers the
 * primary's requests for this process's own families, and asks the primary for
 * their sum over every process, so a scrape that reaches any process sees all
 * of them (requests, refusals, read gates), not the one that happened to answer.
 */
export class ClusterProcessMetrics {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();

  constructor(
    private readonly metrics: Metrics,
    private readonly channel: ClusterChannel,
    private readonly timeoutMs = CLUSTER_METRICS_TIMEOUT_MS,
  ) {
    channel.on('message', this.onMessage);
  }

  private readonly onMessage = (raw: unknown): void => {
    const request = processMetricsRequest.safeParse(raw);
    if (request.success) {
      void this.metrics.registry.getMetricsAsJSON().then((metrics) => {
        if (this.channel.connected === false) return;
        this.channel.send?.({ type: 'mnemo:process-metrics-reply', id: request.data.id, metrics } satisfies ProcessMetricsReply);
      });
      return;
    }
    const reply = clusterMetricsReply.safeParse(raw);
    if (!reply.success) return;
    const waiting = this.waiting.get(reply.data.id);
    if (!waiting) return;
    this.waiting.delete(reply.data.id);
    clearTimeout(waiting.timer);
    if (reply.data.text !== undefined) waiting.resolve(reply.data.text);
    else waiting.reject(new Error(reply.data.error ?? 'no text'));
  };

  /** The sum over the API processes; when the primary cannot answer, this process's own families under a comment saying so (a scrape never fails for it). */
  readonly text = async (): Promise<string> => {
    try {
      return await this.askPrimary();
    } catch (err) {
      return `# the sum over API processes is unavailable (${(err as Error).message}): this process's own families\n${await this.metrics.registry.metrics()}`;
    }
  };

  private askPrimary(): Promise<string> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      if (this.channel.connected === false || !this.channel.send?.({ type: 'mnemo:cluster-metrics-request', id } satisfies ClusterMetricsRequest)) {
        clearTimeout(timer);
        this.waiting.delete(id);
        reject(new Error('not connected to the primary'));
      }
    });
  }

  close(): void {
    this.channel.off('message', this.onMessage);
    for (const { reject, timer } of this.waiting.values()) {
      clearTimeout(timer);
      reject(new Error('closed'));
    }
    this.waiting.clear();
  }
}
