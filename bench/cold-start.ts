// Cold start of `npm start`: process spawn → /readyz 200 with an empty DATA_DIR
// (PGlite initdb, Temporal dev server, migrations, workflow bundle, API), then a
// warm restart on the same DATA_DIR; after each, the first reads a user sends
// (a search and a context request, then each again: `first_reads`). Writes
// bench/results/cold-start.json.
//   npx tsx bench/cold-start.ts [--runs 3]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../core/embedded/ports.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;

/** CPU time (user + system) a Linux process has used so far, in ms; null elsewhere. */
function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in 100 Hz ticks
  } catch {
    return null;
  }
}

const KEY = 'cold-start-bench-key-0123456789';

/** Milliseconds of the first search and context request after ready, and of the same requests again. */
interface FirstReads {
  search_first_ms: number;
  context_first_ms: number;
  search_second_ms: number;
  context_second_ms: number;
}

async function timedRead(url: string, init?: RequestInit): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { ...init, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } });
  await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return Math.round((performance.now() - started) * 10) / 10;
}

/** What a user's first questions meet: the read path's first use in the process (an empty namespace: no data needed). */
async function firstReads(base: string): Promise<FirstReads> {
  const search = () => timedRead(`${base}/v1/search`, { method: 'POST', body: JSON.stringify({ namespace: 'cold', user_id: 'ana', query: 'where does Ana work', k: 10 }) });
  const context = () => timedRead(`${base}/v1/context?${new URLSearchParams({ namespace: 'cold', user_id: 'ana', query: 'where does Ana work' })}`);
  const search_first_ms = await search();
  const context_first_ms = await context();
  return { search_first_ms, context_first_ms, search_second_ms: await search(), context_second_ms: await context() };
}

/** Spawns `node --import tsx scripts/start.ts` (npm start), returns ms until /readyz answers 200, and a stop function. */
async function timeToReady(dataDir: string): Promise<{ ms: number; reads: FirstReads; cpuMs: number | null; stop: () => Promise<number> }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), TEMPORAL_UI_PORT: String(await freePort()), LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS']) delete env[name];
  env.MNEMO_API_KEY = KEY;
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`start exited with ${child.exitCode}: ${stderr}`);
    if (performance.now() - started > 120_000) throw new Error('not ready within 120 s');
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    await sleep(50);
  }
  const ms = Math.round(performance.now() - started);
  const reads = await firstReads(`http://127.0.0.1:${port}`);
  return {
    ms,
    reads,
    cpuMs: cpuMs(child.pid),
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const loadAtStart = Number(os.loadavg()[0].toFixed(2));
const cold: number[] = [];
const warm: number[] = [];
const coldCpu: number[] = [];
const coldReads: FirstReads[] = [];
const warmReads: FirstReads[] = [];
for (let i = 0; i < RUNS; i++) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-cold-'));
  try {
    const first = await timeToReady(dataDir);
    cold.push(first.ms);
    coldReads.push(first.reads);
    if (first.cpuMs !== null) coldCpu.push(first.cpuMs);
    await first.stop();
    const second = await timeToReady(dataDir);
    warm.push(second.ms);
    warmReads.push(second.reads);
    await second.stop();
    console.log(`run ${i + 1}: cold ${first.ms} ms (Mnemo process CPU ${first.cpuMs} ms), warm restart ${second.ms} ms; first search ${first.reads.search_first_ms} ms`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = {
  benchmark: 'cold-start',
  measured: 'process spawn of `node --import tsx scripts/start.ts` (npm start) until GET /readyz answers 200',
  runs: RUNS,
  cold_ms: { median: median(cold), min: Math.min(...cold), max: Math.max(...cold), all: cold },
  // CPU the Mnemo process itself used until ready (the Temporal dev server is a separate process):
  // a floor for the wall time on an idle machine, since PGlite and module loading share one thread.
  cold_process_cpu_ms: coldCpu.length ? { median: median(coldCpu), all: coldCpu } : null,
  warm_restart_ms: { median: median(warm), min: Math.min(...warm), max: Math.max(...warm), all: warm },
  // Right after ready, one request at a time: each run's first search and context, then the same again.
  first_reads: { after_cold_start: coldReads, after_warm_restart: warmReads },
  machine: {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    // The machine is shared: the 1-minute load average at the end says how busy it was.
    loadavg_1m_at_start: loadAtStart,
    loadavg_1m_at_end: Number(os.loadavg()[0].toFixed(2)),
  },
  date: new Date().toISOString(),
};
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/cold-start.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
