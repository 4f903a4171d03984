import { EventEmitter } from 'node:events';
import { ClusterProcessMetrics } from '../api/cluster/processMetrics.js';
import { MetricsSum, type ApiProcessHandle } from '../api/cluster/metricsSum.js';
import { clusterMetricsRequest, type ClusterMetricsReply } from '../api/cluster/messages.js';
import { Metrics } from '../core/metrics/metrics.js';

/**
 * The IPC of several API processes (API_PROCESSES) without processes: each
 * "process" is a Metrics with a ClusterProcessMetrics on a channel whose
 * messages reach the primary's MetricsSum, and back, on a later tick as IPC does.
 */
class FakeApiProcess extends EventEmitter implements ApiProcessHandle {
  readonly metrics = new Metrics();
  readonly channel = new EventEmitter() as EventEmitter & { send(m: unknown): boolean; connected: boolean };
  readonly client: ClusterProcessMetrics;
  answering = true;

  constructor(
    readonly id: number,
    primary: MetricsSum,
    siblings: () => FakeApiProcess[],
    primaryAnswers: () => boolean,
  ) {
    super();
    this.channel.connected = true;
    // Process → primary.
    this.channel.send = (message: unknown) => {
      setImmediate(() => {
        if (primary.onMessage(message)) return;
        const request = clusterMetricsRequest.safeParse(message);
        if (!request.success || !primaryAnswers()) return;
        void primary.collect(siblings()).then((text) => this.deliver({ type: 'mnemo:cluster-metrics-reply', id: request.data.id, text } satisfies ClusterMetricsReply));
      });
      return true;
    };
    this.client = new ClusterProcessMetrics(this.metrics, this.channel, 600);
  }

  private deliver(message: unknown): void {
    setImmediate(() => this.channel.emit('message', message));
  }

  // Primary → process.
  isConnected(): boolean {
    return true;
  }
  send(message: unknown): boolean {
    if (this.answering) this.deliver(message);
    return true;
  }
}

function sample(text: string, line: RegExp): number {
  const match = line.exec(text);
  if (!match) throw new Error(`no ${line} in:\n${text}`);
  return Number(match[1]);
}

describe('/metrics over several API processes (api/cluster/)', () => {
  let processes: FakeApiProcess[];
  let primaryAnswers: boolean;
  beforeEach(() => {
    primaryAnswers = true;
    const primary = new MetricsSum(300);
    processes = [];
    for (let id = 1; id <= 3; id++) processes.push(new FakeApiProcess(id, primary, () => processes, () => primaryAnswers));
  });
  afterEach(() => processes.forEach((p) => p.client.close()));

  it('sums counters and histograms over the processes, keeps the largest backlog count, and shows the database families once', async () => {
    processes.forEach((p, i) => {
      for (let n = 0; n <= i; n++) p.metrics.refused('write');
      p.metrics.httpDuration.observe({ method: 'GET', route: '/v1/context', status: '200' }, 0.01 * (i + 1));
      p.metrics.watchBacklog({ estimate: [40, 70, 55][i] });
      p.metrics.watchReadGate({ capacity: 20, inProgress: i, waiting: 0 });
    });
    const text = await processes[1].metrics.text(processes[1].client.text);
    expect(text).toContain('# mnemo: the sum over 3 of 3 API processes');
    expect(sample(text, /^mnemo_overload_refusals_total\{kind="write"\} (\S+)$/m)).toBe(1 + 2 + 3);
    expect(sample(text, /^mnemo_http_request_duration_seconds_count\{method="GET",route="\/v1\/context",status="200"\} (\S+)$/m)).toBe(3);
    expect(sample(text, /^mnemo_http_request_duration_seconds_sum\{method="GET",route="\/v1\/context",status="200"\} (\S+)$/m)).toBeCloseTo(0.06, 10);
    expect(sample(text, /^mnemo_write_backlog_episodes (\S+)$/m)).toBe(70);
    expect(sample(text, /^mnemo_read_gate_capacity (\S+)$/m)).toBe(60);
    expect(sample(text, /^mnemo_read_gate_in_flight (\S+)$/m)).toBe(0 + 1 + 2);
  });

  it('leaves out a process that does not answer in time, and says so', async () => {
    processes[2].answering = false;
    processes.forEach((p) => p.metrics.refused('read'));
    const text = await processes[0].metrics.text(processes[0].client.text);
    expect(text).toContain('# mnemo: the sum over 2 of 3 API processes');
    expect(sample(text, /^mnemo_overload_refusals_total\{kind="read"\} (\S+)$/m)).toBe(2);
  });

  it("answers with the process's own families, under a comment, when the primary does not answer", async () => {
    primaryAnswers = false;
    processes.forEach((p) => p.metrics.refused('read'));
    const text = await processes[0].metrics.text(processes[0].client.text);
    expect(text).toMatch(/^# the sum over API processes is unavailable \(no answer within 600 ms\)/);
    expect(sample(text, /^mnemo_overload_refusals_total\{kind="read"\} (\S+)$/m)).toBe(1);
  });

  it('does not send once the primary is gone', async () => {
    processes[0].channel.connected = false;
    const text = await processes[0].metrics.text(processes[0].client.text);
    expect(text).toContain('not connected to the primary');
  });
});
