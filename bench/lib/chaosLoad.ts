// The chaos run's client: writes sent on a fixed schedule (open loop: not
// after the previous answer), each logical write with its own
// Idempotency-Key, retried with the same key when its answer was lost (the
// connection cut while the API was killed) or refused (503, after its
// Retry-After). A write counts as acknowledged only once a 202 came back.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { chaosWrite } from './chaosCorpus.js';

export interface WriteOutcome {
  n: number;
  key: string;
  namespace: string;
  content: string;
  /** acknowledged: a 202 came back; refused: only 503s; unknown: some answer was lost and none was 202; error: another status. */
  outcome: 'acknowledged' | 'refused' | 'unknown' | 'error';
  episodeId?: string;
  attempts: number;
  /** Statuses of every attempt (0: no answer). */
  statuses: number[];
}

export interface TurnOutcome {
  namespace: string;
  taskId: string;
  content: string;
  status: number;
  turnIndex?: number;
}

export interface LoadReport {
  writes: WriteOutcome[];
  turns: TurnOutcome[];
  /** 503 answers without a Retry-After header (each is a violation). */
  refusedWithoutRetryAfter: number;
  /** Per second of the run: answers by status, for the timeline in the result. */
  latenciesMs: number[];
}

export interface LoadOptions {
  apiUrl: string;
  key: string;
  writesPerSecond: number;
  turnsPerSecond: number;
  seconds: number;
  namespaces: number;
  /** The load goes on past `seconds` while this says so (until the last fault has healed: every fault then hits a loaded stack). */
  keepGoing?: () => boolean;
  /** Retries stop this long after the last write was due. */
  retryWindowSeconds: number;
  requestTimeoutMs?: number;
}

interface Answer {
  status: number;
  body?: Record<string, unknown>;
  retryAfter: string | null;
}

async function post(url: string, key: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<Answer> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after') };
  } catch {
    // Connection refused or reset, or no answer in time: the write may or may not be stored.
    return { status: 0, retryAfter: null };
  }
}

export async function runChaosLoad(options: LoadOptions): Promise<LoadReport> {
  const timeoutMs = options.requestTimeoutMs ?? 15_000;
  const start = performance.now();
  let retryUntil = Infinity;
  const report: LoadReport = { writes: [], turns: [], refusedWithoutRetryAfter: 0, latenciesMs: [] };

  const write = async (n: number): Promise<WriteOutcome> => {
    const w = chaosWrite(n, options.namespaces);
    const key = randomUUID();
    const body = { content: w.content, namespace: w.namespace, user_id: w.user_id, metadata: { chaos_write: n } };
    const statuses: number[] = [];
    for (;;) {
      const sentAt = performance.now();
      const answer = await post(`${options.apiUrl}/v1/memories`, options.key, body, { 'idempotency-key': key }, timeoutMs);
      statuses.push(answer.status);
      if (answer.status !== 0) report.latenciesMs.push(performance.now() - sentAt);
      const base = { n, key, namespace: w.namespace, content: w.content, attempts: statuses.length, statuses };
      if (answer.status === 202) return { ...base, outcome: 'acknowledged', episodeId: String(answer.body?.id) };
      let waitMs = 1_000;
      if (answer.status === 503) {
        if (!answer.retryAfter) report.refusedWithoutRetryAfter++;
        waitMs = Math.min(5, Number(answer.retryAfter) || 1) * 1000;
      } else if (answer.status !== 0 && answer.status < 500) {
        return { ...base, outcome: 'error' };
      }
      if (performance.now() + waitMs > retryUntil) {
        const outcome = statuses.includes(0) ? 'unknown' : statuses.every((s) => s === 503) ? 'refused' : 'error';
        return { ...base, outcome };
      }
      await sleep(waitMs);
    }
  };

  const turn = async (n: number): Promise<TurnOutcome> => {
    const namespace = `chaos-${n % options.namespaces}`;
    const taskId = `chaos-task-${n % 3}`;
    const content = `Turn ${n}: checking the release notes again.`;
    const answer = await post(`${options.apiUrl}/v1/sessions/${taskId}/turns`, options.key, { role: 'user', content, namespace }, {}, timeoutMs);
    return { namespace, taskId, content, status: answer.status, turnIndex: answer.status === 202 ? Number(answer.body?.turn_index) : undefined };
  };

  const writes: Array<Promise<WriteOutcome>> = [];
  const turns: Array<Promise<TurnOutcome>> = [];
  let sentWrites = 0;
  let sentTurns = 0;
  for (;;) {
    const elapsed = (performance.now() - start) / 1000;
    if (elapsed >= options.seconds && !options.keepGoing?.()) break;
    // Request n is due at n / rate seconds: everything due by now goes out now.
    while (sentWrites <= elapsed * options.writesPerSecond) writes.push(write(sentWrites++));
    while (options.turnsPerSecond > 0 && sentTurns <= elapsed * options.turnsPerSecond) turns.push(turn(sentTurns++));
    await sleep(5);
  }
  retryUntil = performance.now() + options.retryWindowSeconds * 1000;
  report.writes = await Promise.all(writes);
  report.turns = await Promise.all(turns);
  return report;
}
