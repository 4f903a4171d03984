// npm run bench:first-burst -- [--size 100000] [--users 300] [--rounds 3] [--burst 8] [--warm 0,8] [--out name]
//
// Agents' first questions after the API starts. Against the database
// `bench:read --size N` loaded (run it first), for every round and every
// READ_WARM_CONNECTIONS value in `--warm` (interleaved), it starts an API
// process, sends one burst of `burst` agents' questions at once as soon as it
// listens (context and search, per user and namespace-wide, in turn), then a
// second burst, and stops it. Reports how long the process took to listen (the
// warm-up is part of it) and each burst's latencies, per setting.
// Results: bench/results/first-burst.json (or --out).
import { agentsBurst, burstStats } from './lib/agentsBurst.js';
import { generateCorpus, type CorpusUser } from './lib/corpus.js';
import { readBenchDatabaseUrl } from './lib/db.js';
import { Random } from './lib/random.js';
import { percentile, round2 } from './lib/stats.js';
import { BENCH_KEY, parseArgs, startApiProcess, writeResult } from './support/benchStack.js';

const NAMESPACE = 'bench';
const args = parseArgs(process.argv.slice(2));
const size = Number(args.get('size') ?? 100_000);
const userCount = Number(args.get('users') ?? 300);
const rounds = Number(args.get('rounds') ?? 3);
const burstSize = Number(args.get('burst') ?? 8);
const warmSettings = (args.get('warm') ?? '0,8').split(',').map(Number);
const databaseUrl = readBenchDatabaseUrl(size);

const log = (message: string) => console.error(`[bench:first-burst] ${message}`);

interface Start {
  round: number;
  warm: number;
  listening_ms: number;
  first_ms: number[];
  next_ms: number[];
}

async function main() {
  const users: CorpusUser[] = generateCorpus(size, userCount).users.map((u) => ({ ...u }));
  const r = new Random(22);
  const starts: Start[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const warm of warmSettings) {
      log(`round ${round}: READ_WARM_CONNECTIONS=${warm}`);
      const started = performance.now();
      const api = await startApiProcess({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: '127.0.0.1:7233', MNEMO_API_KEY: BENCH_KEY, READ_WARM_CONNECTIONS: String(warm) });
      const listening = performance.now() - started;
      try {
        const burst = agentsBurst({ url: api.url, key: BENCH_KEY, namespace: NAMESPACE, users, random: r });
        const first = await burst(burstSize);
        const next = await burst(burstSize);
        starts.push({ round, warm, listening_ms: round2(listening), first_ms: first.map(round2), next_ms: next.map(round2) });
      } finally {
        await api.stop();
      }
    }
  }
  const bySetting = Object.fromEntries(
    warmSettings.map((warm) => {
      const mine = starts.filter((s) => s.warm === warm);
      const first = mine.flatMap((s) => s.first_ms);
      const next = mine.flatMap((s) => s.next_ms);
      return [
        String(warm),
        {
          listening_ms: mine.map((s) => s.listening_ms),
          first_burst: { ...burstStats(first), burst_p50_ms: mine.map((s) => round2(percentile(s.first_ms, 50))) },
          next_burst: burstStats(next),
        },
      ];
    }),
  );
  writeResult(args.get('out') ?? 'first-burst', { size, burst: burstSize, rounds, by_read_warm_connections: bySetting, starts });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
