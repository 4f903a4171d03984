// `npm run bench:drain -- [--episodes 3000] [--seconds 150] [--workers 1]`
//
// How fast a backlog held only in the database drains: episodes acknowledged
// but never handed to Temporal (Temporal was down, or a burst outgrew the API's
// start queue), which only the `reconcile` schedule starts. The episodes are
// inserted `pending` directly, the schedule is triggered once, and every 10 s
// the JSON records how many are extracted and how many ingestEpisode runs wait
// open in Temporal (its visibility count). Writes bench/results/drain.json.
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { RECONCILE_SCHEDULE_ID } from '../core/ingest/contracts.js';
import { parseArgs, startBenchStack, writeResult } from './support/benchStack.js';
import { WRITE_SENTENCES } from './lib/writeSentences.js';

const args = parseArgs();
const episodes = Number(args.get('episodes') ?? 3_000);
const seconds = Number(args.get('seconds') ?? 150);
const workers = Number(args.get('workers') ?? 1);
const log = (m: string) => console.log(`[bench:drain] ${m}`);

const stack = await startBenchStack({ database: 'mnemo_bench_drain', workers });
const db = new pg.Client({ connectionString: stack.databaseUrl });
await db.connect();
const connection = await Connection.connect({ address: stack.temporalAddress });
try {
  const client = new Client({ connection });
  await db.query(`INSERT INTO namespace (id) VALUES ('drain') ON CONFLICT DO NOTHING`);
  // Oldest first, one second apart in recorded_at, as reconcile orders them.
  await db.query(
    `INSERT INTO episode (id, namespace, user_id, content, occurred_at, recorded_at, workflow_id)
     SELECT g.id, 'drain', 'user-' || (g.i % 300), ($1::text[])[1 + g.i % array_length($1::text[], 1)] || ' (note ' || g.i || ')', now(), now() - make_interval(secs => $2 - g.i), 'episode:' || g.id
       FROM (SELECT gen_random_uuid() AS id, i FROM generate_series(1, $2) AS i) g`,
    [WRITE_SENTENCES, episodes],
  );
  // The worker creates the schedules when it starts.
  const schedule = client.schedule.getHandle(RECONCILE_SCHEDULE_ID);
  for (let tries = 0; ; tries++) {
    try {
      await schedule.describe();
      break;
    } catch (err) {
      if (tries > 120) throw err;
      await sleep(500);
    }
  }
  log(`${episodes} episodes pending; reconcile triggered`);
  const started = Date.now();
  await schedule.trigger();
  const samples: Array<{ s: number; extracted: number; pending: number; open_in_temporal: number }> = [];
  let drainedAfterS: number | null = null;
  for (let s = 10; s <= seconds; s += 10) {
    await sleep(Math.max(0, started + s * 1000 - Date.now()));
    const { rows } = await db.query<{ extracted: number; pending: number }>(
      `SELECT count(*) FILTER (WHERE status = 'extracted')::int AS extracted, count(*) FILTER (WHERE status = 'pending')::int AS pending FROM episode WHERE namespace = 'drain'`,
    );
    const open = await client.workflowService.countWorkflowExecutions({ namespace: 'default', query: "WorkflowType = 'ingestEpisode' AND ExecutionStatus = 'Running'" });
    const sample = { s, ...rows[0], open_in_temporal: Number(open.count) };
    samples.push(sample);
    log(JSON.stringify(sample));
    if (sample.extracted === episodes && drainedAfterS === null) drainedAfterS = s;
  }
  const file = writeResult('drain', {
    episodes,
    workers,
    drained_within_s: drainedAfterS,
    max_open_in_temporal: Math.max(...samples.map((x) => x.open_in_temporal)),
    samples,
    machine: { cores: os.cpus().length },
  });
  log(`wrote ${file}`);
} finally {
  await connection.close();
  await db.end();
  await stack.stop();
}
process.exit(0);
