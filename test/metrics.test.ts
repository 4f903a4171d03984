import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app.js';
import { createApiKey } from '../core/auth/apiKeys.js';
import { buildDeps } from '../core/buildDeps.js';
import { loadConfig } from '../core/config/config.js';
import { createMetrics } from '../core/metrics/index.js';
import { STAGES } from '../core/domain/types.js';
import { freePort } from '../core/embedded/ports.js';
import { HeuristicProvider } from '../core/extraction/heuristic/index.js';
import { episodeWorkflowId, WORKFLOW_NAMES } from '../core/ingest/contracts.js';
import { startWorker } from '../workers/runtime.js';
import { createTestDatabase } from './support/db.js';
import { eventually } from './support/eventually.js';
import { startOpenAIStub, type OpenAIStub } from './support/openaiStub.js';
import { providerResponder } from './support/openaiStubResponder.js';
import { ADMIN_KEY, startTestStack, waitForStatus, type TestStack } from './support/stack.js';
import { spawnWorkerProcess, stopProcess } from './support/workerProcess.js';
import { testTemporalAddress } from './support/temporal.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format → samples (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** Sum of the samples of `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

const has = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

const NS = 'metrics';
const STUB_ENV = { LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'stub-key', LLM_TIMEOUT_MS: '10000' };

describe('GET /metrics', () => {
  let stub: OpenAIStub;
  let stack: TestStack;
  let worker: ChildProcess;
  let workerMetricsUrl: string;

  beforeAll(async () => {
    // Extraction through a model endpoint (the stub answers as the heuristic provider would), so model calls and tokens are recorded.
    stub = await startOpenAIStub();
    stub.setResponder(providerResponder(new HeuristicProvider()));
    const env = { ...STUB_ENV, OPENAI_BASE_URL: stub.url };
    // A small read gate, so that a burst of reads is refused (overload) within the test.
    stack = await startTestStack({ withWorker: false, env: { ...env, READ_CONCURRENCY: '1', READ_QUEUE_TIMEOUT_MS: '20' } });
    // The worker in a process of its own, as deployed: the API's database families must count what it did.
    const address = `127.0.0.1:${await freePort()}`;
    workerMetricsUrl = `http://${address}/metrics`;
    worker = spawnWorkerProcess(stack.deps.config, { ...env, WORKER_METRICS_ADDRESS: address });
  });
  afterAll(async () => {
    await stopProcess(worker);
    await stack.stop();
    await stub.close();
  });

  /** A registry for an extra app, so that it never takes over the stack app's read gate gauges. */
  const ownMetrics = () => createMetrics(stack.deps.telemetryPool, stack.deps.logger);

  async function scrape(key: string | null = ADMIN_KEY, baseUrl = stack.baseUrl): Promise<{ status: number; text: string; type: string | null }> {
    const res = await fetch(`${baseUrl}/metrics`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
  }

  it('needs an operator key unless METRICS_PUBLIC=true', async () => {
    expect((await scrape(null)).status).toBe(401);
    const agent = await createApiKey(stack.deps.pool, { role: 'agent', namespace: NS });
    expect((await scrape(agent.key)).status).toBe(403);
    const operator = await createApiKey(stack.deps.pool, { role: 'operator', namespace: NS });
    const allowed = await scrape(operator.key);
    expect(allowed.status).toBe(200);
    expect(allowed.type).toContain('text/plain');

    const open: Server = await new Promise((resolve) => {
      const s = createApp({ ...stack.deps, metrics: ownMetrics(), config: { ...stack.deps.config, METRICS_PUBLIC: true } }).listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const scraped = await scrape(null, `http://127.0.0.1:${(open.address() as AddressInfo).port}`);
      expect(scraped.status).toBe(200);
      expect(has(parse(scraped.text), 'process_cpu_user_seconds_total')).toBe(true);
    } finally {
      await new Promise((resolve) => open.close(resolve));
    }
  });

  it('moves with traffic: HTTP latency by route, refusals, episodes, stages, model usage, dream runs', async () => {
    const before = parse((await scrape()).text);

    const ids: string[] = [];
    for (const content of ['Ana works at Lumen Labs.', 'Ana lives in Porto.', 'Bruno works at Kestrel.']) {
      const res = await stack.request<{ id: string }>('POST', '/v1/memories', { namespace: NS, content });
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    // A worker process starting on a busy machine may take a while before it polls.
    for (const id of ids) expect((await waitForStatus(stack, id, ['extracted', 'failed', 'skipped'], 180_000)).status).toBe('extracted');
    expect((await stack.request('POST', '/v1/search', { namespace: NS, query: 'where does Ana work' })).status).toBe(200);
    expect((await stack.request('GET', `/v1/memories/${randomUUID()}`)).status).toBe(404);
    // A burst of reads against a gate of one with a 20 ms queue bound: some are refused with 503.
    const burst = await Promise.all(Array.from({ length: 12 }, () => stack.request('POST', '/v1/context', { namespace: NS, query: 'Ana' })));
    expect(burst.map((r) => r.status)).toContain(503);
    const run = await stack.request<{ run_id: string }>('POST', '/v1/dream/run', { namespace: NS });
    expect(run.status).toBe(202);
    await eventually(
      () => stack.request<{ status: string }>('GET', `/v1/dream/runs/${run.body.run_id}`),
      (r) => r.body.status !== 'running',
      'the dream run finished',
      60_000,
      250,
    );

    // Database families are recomputed at most every SNAPSHOT_MAX_AGE_MS: poll until a scrape reflects the traffic.
    const databaseFamilies = (s: Sample[]) => s.filter((x) => /^mnemo_(episodes|dream|review|metrics)/.test(x.name) && !x.name.endsWith("_bucket"));
    await eventually(
      async () => databaseFamilies(parse((await scrape()).text)),
      (s) => total(s, 'mnemo_episodes', { status: 'extracted' }) >= ids.length && total(s, 'mnemo_dream_run_duration_seconds_count') >= 1,
      'database families reflect the traffic',
      60_000,
      500,
    );
    const after = parse((await scrape()).text);

    const requests = (s: Sample[], labels: Record<string, string>) => total(s, 'mnemo_http_request_duration_seconds_count', labels);
    expect(requests(after, { method: 'POST', route: '/v1/memories', status: '202' }) - requests(before, { method: 'POST', route: '/v1/memories', status: '202' })).toBe(ids.length);
    expect(requests(after, { method: 'GET', route: '/v1/memories/:id', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(requests(after, { method: 'GET', route: '/v1/memories/:id', status: '200' })).toBeGreaterThan(0);
    expect(requests(after, { method: 'POST', route: '/v1/search', status: '200' })).toBe(1);
    // Raw URLs never become labels: no route value carries an id.
    expect(after.filter((s) => s.name === 'mnemo_http_request_duration_seconds_count').every((s) => !/[0-9a-f]{8}-/.test(s.labels.route))).toBe(true);

    const refused = burst.filter((r) => r.status === 503).length;
    expect(total(after, 'mnemo_overload_refusals_total', { kind: 'read' }) - total(before, 'mnemo_overload_refusals_total', { kind: 'read' })).toBe(refused);
    expect(total(after, 'mnemo_overload_refusals_total', { kind: 'write' })).toBe(0);
    expect(total(after, 'mnemo_read_gate_capacity')).toBe(1);
    expect(has(after, 'mnemo_read_gate_queue_length')).toBe(true);
    expect(has(after, 'mnemo_read_gate_in_flight')).toBe(true);

    expect(total(after, 'mnemo_episodes', { status: 'extracted' })).toBeGreaterThan(total(before, 'mnemo_episodes', { status: 'extracted' }));
    expect(total(after, 'mnemo_episodes', { status: 'pending' })).toBe(0);
    for (const stage of STAGES) {
      expect([stage, total(after, 'mnemo_stage_runs_total', { stage, status: 'succeeded' })]).toEqual([stage, expect.any(Number)]);
      expect(total(after, 'mnemo_stage_runs_total', { stage, status: 'succeeded' })).toBeGreaterThanOrEqual(ids.length);
      expect(total(after, 'mnemo_stage_duration_seconds_count', { stage })).toBeGreaterThanOrEqual(ids.length);
      expect(total(after, 'mnemo_stage_duration_seconds_bucket', { stage, le: '+Inf' })).toBe(total(after, 'mnemo_stage_duration_seconds_count', { stage }));
      expect(has(after, 'mnemo_stage_retries_total', { stage })).toBe(true);
    }
    // The model stages called the (stub) model and recorded their tokens.
    expect(total(after, 'mnemo_model_calls_total')).toBeGreaterThan(0);
    expect(total(after, 'mnemo_model_tokens_total', { direction: 'in' })).toBeGreaterThan(0);
    expect(total(after, 'mnemo_model_tokens_total', { direction: 'out' })).toBeGreaterThan(0);
    expect(total(after, 'mnemo_dream_runs')).toBeGreaterThanOrEqual(1);
    expect(has(after, 'mnemo_dream_last_run_duration_seconds')).toBe(true);
    expect(has(after, 'mnemo_episode_oldest_pending_seconds')).toBe(true);
    expect(total(after, 'mnemo_metrics_database_errors')).toBe(0);
    expect(after.find((s) => s.name === 'mnemo_metrics_database_load_seconds')?.value).toBeLessThan(2);
  }, 300_000);

  it("exports the worker's Temporal SDK metrics, with reconcile's starts, at WORKER_METRICS_ADDRESS", async () => {
    // An episode acknowledged but never started (an API that died before starting its workflow): reconcile starts it.
    const id = randomUUID();
    await stack.deps.pool.query(`INSERT INTO episode (id, namespace, content, occurred_at, workflow_id) VALUES ($1, $2, $3, now(), $4)`, [
      id,
      NS,
      'Carla lives in Lyon.',
      episodeWorkflowId(id),
    ]);
    const result = await stack.deps.temporal.client.workflow.execute(WORKFLOW_NAMES.reconcile, {
      workflowId: `metrics-reconcile-${randomUUID()}`,
      taskQueue: stack.deps.temporal.taskQueue,
      args: [],
    });
    // Found: this one, and any earlier episode whose run the worker has not yet claimed (those are attached to, not started).
    expect((result as { started: number }).started).toBe(1);
    await waitForStatus(stack, id, ['extracted', 'failed', 'skipped'], 120_000);

    const samples = await eventually(
      async () => {
        const res = await fetch(workerMetricsUrl);
        return parse(await res.text());
      },
      (s) => total(s, 'mnemo_reconcile_extractions_started') >= 1,
      "the worker's metrics show reconcile's start",
      15_000,
      250,
    );
    expect(samples.some((s) => s.name.startsWith('temporal_workflow_completed'))).toBe(true);
    expect(samples.some((s) => s.name.startsWith('temporal_activity_execution_latency'))).toBe(true);

    // npm start's bridge: the API's /metrics carries the worker endpoint's text; an endpoint that is down leaves a comment, not a failed scrape.
    for (const [url, bridged] of [[workerMetricsUrl, true], [`http://127.0.0.1:${await freePort()}/metrics`, false]] as const) {
      const app: Server = await new Promise((resolve) => {
        const s = createApp({ ...stack.deps, metrics: ownMetrics() }, { metrics: { workerMetricsUrl: url } }).listen(0, '127.0.0.1', () => resolve(s));
      });
      try {
        const scraped = await scrape(ADMIN_KEY, `http://127.0.0.1:${(app.address() as AddressInfo).port}`);
        expect(scraped.status).toBe(200);
        const merged = parse(scraped.text);
        expect(has(merged, 'mnemo_episodes')).toBe(true);
        expect(total(merged, 'mnemo_reconcile_extractions_started') >= 1).toBe(bridged);
        if (!bridged) expect(scraped.text).toContain(`# worker metrics at ${url} unavailable`);
      } finally {
        await new Promise((resolve) => app.close(resolve));
      }
    }
  }, 180_000);
});

interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/** A minimal OTLP/HTTP collector: keeps the spans of every JSON export posted to /v1/traces. */
async function startCollector(): Promise<{ url: string; spans: CollectedSpan[]; paths: string[]; close(): Promise<void> }> {
  const spans: CollectedSpan[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(`${req.url} ${req.headers['content-type']}`);
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: CollectedSpan[] }> }> };
        for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    paths,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('traces (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('one trace spans the API request, the workflow it starts and its activities', async () => {
    const collector = await startCollector();
    const db = await createTestDatabase();
    const config = loadConfig({
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: testTemporalAddress(),
      TEMPORAL_TASK_QUEUE: `test-${randomUUID().slice(0, 8)}`,
      MNEMO_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'silent',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    } as NodeJS.ProcessEnv);
    // buildDeps itself (not the test stack's pre-built Temporal client): tracing and the client interceptors come from config.
    const deps = buildDeps(config);
    const server: Server = await new Promise((resolve) => {
      const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
    });
    const worker = await startWorker(deps, { ensureSchedules: false });
    try {
      expect(deps.tracing).toBeDefined();
      // The caller's own trace (W3C traceparent): Mnemo's spans continue it.
      const traceId = randomUUID().replace(/-/g, '');
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/memories`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', traceparent: `00-${traceId}-${'a1'.repeat(8)}-01` },
        body: JSON.stringify({ namespace: 'traced', content: 'Dora works at Quill.' }),
      });
      expect(res.status).toBe(202);
      const { id } = (await res.json()) as { id: string };
      await eventually(
        async () => (await deps.pool.query<{ status: string }>('SELECT status FROM episode WHERE id = $1', [id])).rows[0].status,
        (status) => status === 'extracted',
        'the traced episode was extracted',
        120_000,
        200,
      );
      const names = await eventually(
        async () => collector.spans.filter((s) => s.traceId === traceId).map((s) => s.name),
        (n) => n.includes('POST /v1/memories') && n.some((x) => x.startsWith('RunWorkflow:ingestEpisode')) && n.some((x) => x.startsWith('RunActivity:')),
        'request, workflow and activity spans in one trace',
        30_000,
        250,
      );
      expect(names).toContainEqual(expect.stringMatching(/^StartWorkflow:ingestEpisode/));
      // Traces only: the SDK sends no metrics or logs to the collector.
      expect(collector.paths.every((p) => p.startsWith('/v1/traces application/json'))).toBe(true);
      // Every span of the trace hangs from another of its spans, or from the caller's.
      const trace = collector.spans.filter((s) => s.traceId === traceId);
      const ids = new Set([...trace.map((s) => s.spanId), 'a1'.repeat(8)]);
      expect(trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual([]);
    } finally {
      await worker.shutdown();
      await new Promise((resolve) => server.close(resolve));
      await deps.close();
      await db.drop();
      await collector.close();
    }
  }, 180_000);
});
