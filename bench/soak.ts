// `npm run bench:soak -- --minutes 10`: a mixed open-loop load (writes,
// searches, lists) for a long stretch against API and worker processes on a
// private PostgreSQL cluster and Temporal dev server. Samples the RSS of the
// API and the worker every 30 s and the p95 latency per minute, and judges:
// memory flat after warm-up (growth < 10 %), p95 not drifting (last minute
// within 20 % of the second). Writes bench/results/soak.json.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chaosWrite, person } from './lib/chaosCorpus.js';
import { STACK_KEY, startFaultStack } from './lib/faultStack.js';
import { ROOT } from './lib/serviceProcess.js';
import { percentile, round2 } from './lib/stats.js';
import { parseArgs, writeResult } from './support/benchStack.js';

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const args = parseArgs();
const minutes = Number(args.get('minutes') ?? 10);
const writesPerSecond = Number(args.get('writes-per-second') ?? 5);
const readsPerSecond = Number(args.get('reads-per-second') ?? 15);
const NAMESPACES = 4;
const SAMPLE_EVERY_MS = 30_000;
/** Memory is judged after this much of the run: caches, JIT and pools fill first. */
const warmupMs = Math.max(60_000, minutes * 60_000 * 0.2);

if (!(minutes >= 2)) throw new Error('--minutes must be at least 2 (the p95 verdict compares the second minute with the last)');

interface Answer {
  kind: 'write' | 'search' | 'list';
  atMs: number;
  status: number;
  latencyMs: number;
}

/** Resident set size in kB (VmRSS), or null when the process is gone. */
function rssKb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** The n-th read: a search for a person's facts, or a page of a namespace's memories. */
function readRequest(n: number): { kind: Answer['kind']; method: string; path: string; body?: unknown } {
  const namespace = `chaos-${n % NAMESPACES}`;
  if (n % 3 === 2) return { kind: 'list', method: 'GET', path: `/v1/memories?namespace=${namespace}&limit=20` };
  const p = person((n * 7) % 40);
  const queries = [`where does ${p.name} live`, `${p.name} job`, `what food does ${p.name} like`];
  return { kind: 'search', method: 'POST', path: '/v1/search', body: { query: queries[n % queries.length], namespace, k: 10 } };
}

const stack = await startFaultStack({ database: 'mnemo_soak', logDir: path.join(ROOT, 'bench/results/logs') });
const answers: Answer[] = [];
const samples: Array<{ at_s: number; api_rss_mb: number | null; worker_rss_mb: number | null }> = [];
try {
  const start = performance.now();
  const durationMs = minutes * 60_000;
  const send = async (kind: Answer['kind'], method: string, urlPath: string, body: unknown, dueAt: number) => {
    let status = 0;
    try {
      const res = await fetch(`${stack.apiUrl}${urlPath}`, {
        method,
        headers: { authorization: `Bearer ${STACK_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = 0;
    }
    // From when the request was due: a late send counts against latency.
    answers.push({ kind, atMs: dueAt - start, status, latencyMs: performance.now() - dueAt });
  };
  const sample = () =>
    samples.push({
      at_s: Math.round((performance.now() - start) / 1000),
      api_rss_mb: round2((rssKb(stack.api.pid) ?? NaN) / 1024),
      worker_rss_mb: round2((rssKb(stack.worker.pid) ?? NaN) / 1024),
    });
  sample();
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  const pending: Array<Promise<void>> = [];
  let writes = 0;
  let reads = 0;
  for (;;) {
    const elapsed = performance.now() - start;
    if (elapsed >= durationMs) break;
    while (writes <= (elapsed / 1000) * writesPerSecond) {
      const w = chaosWrite(writes, NAMESPACES);
      pending.push(send('write', 'POST', '/v1/memories', { ...w, metadata: { soak_write: writes } }, start + (writes * 1000) / writesPerSecond));
      writes++;
    }
    while (reads <= (elapsed / 1000) * readsPerSecond) {
      const r = readRequest(reads);
      pending.push(send(r.kind, r.method, r.path, r.body, start + (reads * 1000) / readsPerSecond));
      reads++;
    }
    await sleep(5);
  }
  await Promise.all(pending);
  clearInterval(sampler);
  sample();

  const perMinute = Array.from({ length: minutes }, (_, m) => {
    const inMinute = answers.filter((a) => a.atMs >= m * 60_000 && a.atMs < (m + 1) * 60_000);
    const p95Of = (kind?: Answer['kind']) => round2(percentile(inMinute.filter((a) => a.status > 0 && (!kind || a.kind === kind)).map((a) => a.latencyMs), 95));
    return {
      minute: m + 1,
      requests: inMinute.length,
      errors: inMinute.filter((a) => a.status === 0 || a.status >= 500).length,
      p95_ms: p95Of(),
      p95_write_ms: p95Of('write'),
      p95_search_ms: p95Of('search'),
      p95_list_ms: p95Of('list'),
    };
  });
  const growth = (key: 'api_rss_mb' | 'worker_rss_mb') => {
    const baseline = samples.find((s) => s.at_s * 1000 >= warmupMs)?.[key] ?? NaN;
    const final = samples.at(-1)?.[key] ?? NaN;
    return round2(((final - baseline) / baseline) * 100);
  };
  const apiGrowth = growth('api_rss_mb');
  const workerGrowth = growth('worker_rss_mb');
  const second = perMinute[1].p95_ms;
  const last = perMinute.at(-1)!.p95_ms;
  const driftPct = round2(((last - second) / second) * 100);
  const output = {
    minutes,
    writes_per_second: writesPerSecond,
    reads_per_second: readsPerSecond,
    requests: answers.length,
    errors: answers.filter((a) => a.status === 0 || a.status >= 500).length,
    statuses: answers.reduce<Record<string, number>>((acc, a) => ({ ...acc, [a.status]: (acc[a.status] ?? 0) + 1 }), {}),
    warmup_s: warmupMs / 1000,
    rss_samples: samples,
    p95_per_minute: perMinute,
    verdicts: {
      memory_flat: { pass: apiGrowth < 10 && workerGrowth < 10, api_growth_pct: apiGrowth, worker_growth_pct: workerGrowth, limit_pct: 10 },
      // Faster at the end is no drift; slower by more than 20 % is.
      p95_stable: { pass: driftPct <= 20, second_minute_ms: second, last_minute_ms: last, drift_pct: driftPct, limit_pct: 20 },
    },
    unexpected_exits: { api: stack.api.unexpectedExits.length, worker: stack.worker.unexpectedExits.length },
    machine: { cores: (await import('node:os')).cpus().length },
  };
  console.log(JSON.stringify(output, null, 2));
  console.log(`written ${writeResult('soak', output)}`);
  process.exitCode = output.verdicts.memory_flat.pass && output.verdicts.p95_stable.pass ? 0 : 1;
} finally {
  await stack.stop();
}
