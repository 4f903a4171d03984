import { agentQuery, type CorpusUser } from './corpus.js';
import type { Random } from './random.js';
import { percentile, round2 } from './stats.js';

/** The median and slowest of several bursts' latencies. */
export function burstStats(ms: number[]): { p50_ms: number; max_ms: number } {
  return { p50_ms: round2(percentile(ms, 50)), max_ms: round2(Math.max(...ms)) };
}

/**
 * Agents' questions sent all at once, as agents ask after a pause: context and
 * search, per user and namespace-wide, in turn (the i-th read takes the i-th
 * shape). Resolves with each read's milliseconds; a status other than 200 throws.
 */
export function agentsBurst(options: { url: string; key: string; namespace: string; users: CorpusUser[]; random: Random }) {
  const { url, namespace, users, random } = options;
  const headers = { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' };
  const read = async (i: number): Promise<number> => {
    const user = random.pick(users);
    const question = agentQuery(random, user);
    const scoped: Record<string, string> = i % 2 === 0 ? { user_id: user.id } : {};
    const started = performance.now();
    const res =
      i % 4 < 2
        ? await fetch(`${url}/v1/context?${new URLSearchParams({ namespace, query: question, ...scoped })}`, { headers })
        : await fetch(`${url}/v1/search`, { method: 'POST', headers, body: JSON.stringify({ namespace, query: question, k: 10, ...scoped }) });
    await res.text();
    if (res.status !== 200) throw new Error(`${res.status} from ${res.url}`);
    return performance.now() - started;
  };
  return (size: number): Promise<number[]> => Promise.all(Array.from({ length: size }, (_, i) => read(i)));
}
