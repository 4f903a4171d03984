// `npm run bench:ingest -- --source json --episodes 100 [--triples 1000] [--workers 1]`
// The structured bulk path (content_type json, issue 20): episodes of typed triples through the
// API, Temporal and the seven stages (no extraction model), reported as triples per second.
import os from 'node:os';
import pg from 'pg';
import { BENCH_KEY, startBenchStack, writeResult } from '../support/benchStack.js';
import { Random } from './random.js';

export interface JsonIngestOptions {
  episodes: number;
  triplesPerEpisode: number;
  workers: number;
}

interface Triple {
  subject: string;
  subject_type: string;
  predicate: string;
  object?: string;
  object_type?: string;
  value?: string;
  valid_from?: string;
  confidence?: number;
}

/**
 * A reproducible people directory: people who know each other, work at (and
 * move between) organizations, hold roles and like things. Names repeat across
 * episodes, so later episodes resolve to stored entities, confirm stored facts
 * and extend single-valued chains, as a real sync does.
 */
export function directoryEpisode(random: Random, triples: number): Triple[] {
  const people = 20_000;
  // Zipf-like: a few people appear in many episodes, most in one or two.
  const person = () => `Person ${Math.floor(people * Math.pow(random.next(), 2.2))}`;
  const out: Triple[] = [];
  for (let i = 0; i < triples; i++) {
    const subject = person();
    const kind = random.int(10);
    const base = { subject, subject_type: 'person' };
    if (kind < 4) out.push({ ...base, predicate: 'knows', object: person(), object_type: 'person' });
    else if (kind < 6) {
      const year = 2015 + random.int(10);
      out.push({ ...base, predicate: 'works_at', object: `Org ${random.int(500)}`, object_type: 'organization', valid_from: `${year}-0${1 + random.int(9)}-01T00:00:00Z` });
    } else if (kind < 8) out.push({ ...base, predicate: 'has_role', value: random.pick(['engineer', 'designer', 'manager', 'analyst', 'founder', 'advisor']) });
    else out.push({ ...base, predicate: 'likes', value: random.pick(['tea', 'chess', 'cycling', 'jazz', 'sushi', 'hiking', 'poetry', 'climbing']), confidence: 0.8 });
  }
  return out;
}

async function waitAllDone(db: pg.Client, namespace: string, total: number): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM episode WHERE namespace = $1 AND status IN ('extracted', 'failed', 'skipped')`, [namespace]);
    if (rows[0].n >= total) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function runJsonIngest(options: JsonIngestOptions): Promise<void> {
  const random = new Random(20);
  const episodes = Array.from({ length: options.episodes }, () => directoryEpisode(random, options.triplesPerEpisode));
  const env = { LLM_PROVIDER: 'heuristic' };
  const stack = await startBenchStack({ database: 'mnemo_bench_ingest_json', env, workers: options.workers });
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    // Let the workers finish bundling and polling before the clock starts.
    await new Promise((r) => setTimeout(r, 8_000));
    const started = performance.now();
    for (const facts of episodes) {
      // One episode per request: a thousand triples is ~100 KB, the body limit is 1 MB.
      const res = await fetch(`${stack.apiUrl}/v1/memories`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ namespace: 'bench', content_type: 'json', content: { facts } }),
      });
      if (res.status !== 202) throw new Error(`POST /v1/memories → ${res.status} ${await res.text()}`);
    }
    await waitAllDone(db, 'bench', episodes.length);
    const seconds = (performance.now() - started) / 1000;
    const triples = episodes.length * options.triplesPerEpisode;
    const { rows: statusRows } = await db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM episode WHERE namespace = 'bench' GROUP BY status`);
    const { rows: stageRows } = await db.query<{ stage: string; p50: number }>(
      `SELECT stage, percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50 FROM stage_run WHERE status = 'succeeded' GROUP BY stage`,
    );
    const { rows: graph } = await db.query<{ facts: number; current: number; confirmations: number; entities: number }>(
      `SELECT (SELECT count(*)::int FROM fact WHERE namespace = 'bench') AS facts,
              (SELECT count(*)::int FROM fact WHERE namespace = 'bench' AND expired_at IS NULL AND invalid_at IS NULL) AS current,
              (SELECT count(*)::int FROM fact_episode fe JOIN fact f ON f.id = fe.fact_id WHERE f.namespace = 'bench' AND fe.relation = 'confirmed') AS confirmations,
              (SELECT count(*)::int FROM entity WHERE namespace = 'bench') AS entities`,
    );
    const output = {
      source: 'json',
      episodes: episodes.length,
      triples_per_episode: options.triplesPerEpisode,
      triples,
      workers: options.workers,
      embedding_provider: process.env.EMBEDDING_PROVIDER ?? 'local',
      seconds: Number(seconds.toFixed(2)),
      triples_per_s: Number((triples / seconds).toFixed(1)),
      episodes_per_s: Number((episodes.length / seconds).toFixed(3)),
      statuses: Object.fromEntries(statusRows.map((r) => [r.status, r.n])),
      graph: graph[0],
      stage_p50_ms: Object.fromEntries(stageRows.map((r) => [r.stage, Number(Number(r.p50).toFixed(1))])),
      machine: { cores: os.cpus().length },
    };
    console.log(JSON.stringify(output, null, 2));
    console.log(`written ${writeResult('ingest-json', output)}`);
  } finally {
    await db.end();
    await stack.stop();
  }
}
