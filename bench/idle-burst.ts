// npm run bench:idle-burst -- [--size 100000] [--users 300] [--gaps 20,40] [--rounds 3] [--burst 8] [--out name]
//
// Agents pause between turns, then ask several things at once. This measures
// the reads of such a burst after each idle gap: against the database
// `bench:read --size N` loaded (run it first), an API process is warmed with 5 s
// of closed-loop agents' searches, then, for every round and gap, it serves 5
// bursts in a row, waits `gap` seconds with nothing to do, and sends one burst of
// `burst` agents' questions at once (context and search, per user and
// namespace-wide, in turn). It reports each burst's latencies and the burst
// after it. Set READ_CONNECTION_IDLE_MS in the environment to try another
// value (the API process inherits it; 30000 is the `pg` pool's default).
// Results: bench/results/idle-burst.json (or --out).
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { BENCH_KEY as KEY, parseArgs, startApiProcess, writeResult } from './support/benchStack.js';
import { agentsBurst, burstStats } from './lib/agentsBurst.js';
import { agentQuery, generateCorpus, type CorpusUser } from './lib/corpus.js';
import { readBenchDatabaseUrl } from './lib/db.js';
import { Random } from './lib/random.js';
import { round2 } from './lib/stats.js';

const NAMESPACE = 'bench';
const args = parseArgs(process.argv.slice(2));
const size = Number(args.get('size') ?? 100_000);
const userCount = Number(args.get('users') ?? 300);
const gaps = (args.get('gaps') ?? '20,40').split(',').map(Number);
const rounds = Number(args.get('rounds') ?? 3);
const burstSize = Number(args.get('burst') ?? 8);
const databaseUrl = readBenchDatabaseUrl(size);

const log = (message: string) => console.error(`[bench:idle-burst] ${message}`);

async function main() {
  // Detached copies: the corpus itself need not stay alive in this process.
  const users: CorpusUser[] = generateCorpus(size, userCount).users.map((u) => ({ ...u }));
  const r = new Random(21);
  const idleSetting = process.env.READ_CONNECTION_IDLE_MS;
  const api = await startApiProcess({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: '127.0.0.1:7233', MNEMO_API_KEY: KEY, ...(idleSetting ? { READ_CONNECTION_IDLE_MS: idleSetting } : {}) });
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const sendBurst = agentsBurst({ url: api.url, key: KEY, namespace: NAMESPACE, users, random: r });
  const burst = () => sendBurst(burstSize);
  try {
    log('warming up: 5 s of closed-loop agents\' searches, 8 connections');
    await autocannon({
      url: api.url,
      connections: 8,
      duration: 5,
      headers,
      requests: [
        {
          setupRequest: (req) => {
            const user = r.pick(users);
            return { ...req, method: 'POST', path: '/v1/search', body: JSON.stringify({ namespace: NAMESPACE, query: agentQuery(r, user), k: 10 }) };
          },
        },
      ],
    });
    const bursts: Array<{ round: number; gap_s: number; after_gap_ms: number[]; next_ms: number[] }> = [];
    for (let round = 1; round <= rounds; round++) {
      for (const gap of gaps) {
        for (let i = 0; i < 5; i++) await burst();
        log(`round ${round}: ${gap} s idle, then ${burstSize} reads at once`);
        await sleep(gap * 1000);
        const afterGap = await burst();
        const next = await burst();
        bursts.push({ round, gap_s: gap, after_gap_ms: afterGap.map(round2), next_ms: next.map(round2) });
      }
    }
    const byGap = Object.fromEntries(
      gaps.map((gap) => {
        const mine = bursts.filter((b) => b.gap_s === gap);
        const after = mine.flatMap((b) => b.after_gap_ms);
        const next = mine.flatMap((b) => b.next_ms);
        return [
          String(gap),
          {
            after_gap: { ...burstStats(after), burst_max_ms: mine.map((b) => Math.max(...b.after_gap_ms)) },
            next_burst: burstStats(next),
          },
        ];
      }),
    );
    const result = {
      size,
      read_connection_idle_ms: idleSetting ? Number(idleSetting) : 'default',
      burst: burstSize,
      rounds,
      by_gap_s: byGap,
      bursts,
    };
    writeResult(args.get('out') ?? 'idle-burst', result);
  } finally {
    await api.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
