// `npm run test:chaos`: the chaos run (bench/lib/chaosRun.ts) at full size —
// 20 writes/s for 3 minutes with all four faults — or `--short` (the CI form).
// Flags override single settings: --writes-per-second, --seconds, --temporal-down.
// Writes bench/results/chaos.json (chaos-short.json for --short; --out <name>)
// and prints it; exits 1 when anything was lost, stuck or duplicated, or a
// fault kind was not injected.
import { parseArgs, writeResult } from './support/benchStack.js';
import { FULL_CHAOS, runChaos, SHORT_CHAOS } from './lib/chaosRun.js';

// Ctrl-C: exit through the exit handlers, which stop the run's PostgreSQL, Temporal, API and worker.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const args = parseArgs();
const base = args.has('short') ? SHORT_CHAOS : FULL_CHAOS;
const number = (name: string, fallback: number) => (args.has(name) ? Number(args.get(name)) : fallback);
const result = await runChaos({
  ...base,
  writesPerSecond: number('writes-per-second', base.writesPerSecond),
  seconds: number('seconds', base.seconds),
  temporalDownSeconds: number('temporal-down', base.temporalDownSeconds),
});
console.log(JSON.stringify(result, null, 2));
console.log(`written ${writeResult(args.get('out') ?? (args.has('short') ? 'chaos-short' : 'chaos'), result)}`);
const ok = result.lost === 0 && result.stuck === 0 && result.duplicates === 0 && result.faults_injected === 4;
process.exit(ok ? 0 : 1);
