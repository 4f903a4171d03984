import type pg from 'pg';
import { MnemoClient } from '../../client/index.js';
import { namespaceFor, type RecallConversation } from './recallData.js';

/** Where each ingested turn went: episode id → its conversation and dia_id. */
export interface Ingested {
  turnOf: Map<string, { key: string; diaId: string }>;
  /** Episodes whose extraction failed (still searchable by text). */
  failed: number;
  seconds: number;
  reused: boolean;
}

export interface ApiClient {
  baseUrl: string;
  key: string;
}

/** What a previous run left in the database, if it holds exactly these conversations. */
export async function findIngested(pool: pg.Pool, conversations: RecallConversation[]): Promise<Ingested | null> {
  const namespaces = conversations.map((c) => namespaceFor(c.key));
  const { rows } = await pool.query<{ id: string; namespace: string; dia_id: string; status: string }>(
    `SELECT id, namespace, metadata->>'dia_id' AS dia_id, status FROM episode WHERE namespace = ANY($1)`,
    [namespaces],
  );
  const expected = conversations.reduce((s, c) => s + c.turns.length, 0);
  if (rows.length !== expected || rows.some((r) => r.status === 'pending' || r.status === 'extracting')) return null;
  const keyOf = new Map(conversations.map((c) => [namespaceFor(c.key), c.key]));
  return {
    turnOf: new Map(rows.map((r) => [r.id, { key: keyOf.get(r.namespace) ?? r.namespace, diaId: r.dia_id }])),
    failed: rows.filter((r) => r.status === 'failed').length,
    seconds: 0,
    reused: true,
  };
}

/**
 * Writes every turn through `POST /v1/memories/batch` (speaker = who said it,
 * occurred_at = the turn's time, dia_id in metadata; one namespace per
 * conversation), then waits until extraction has finished for all of them.
 */
export async function ingestConversations(
  api: ApiClient,
  pool: pg.Pool,
  conversations: RecallConversation[],
  log: (m: string) => void,
  timeoutMs = 3 * 3600_000,
): Promise<Ingested> {
  const started = Date.now();
  const namespaces = conversations.map((c) => namespaceFor(c.key));
  await pool.query('DELETE FROM namespace WHERE id = ANY($1)', [namespaces]);
  const turnOf = new Map<string, { key: string; diaId: string }>();
  const client = new MnemoClient({ baseUrl: api.baseUrl, apiKey: api.key, maxRetries: 1000 });
  for (const conversation of conversations) {
    const namespace = namespaceFor(conversation.key);
    for (let i = 0; i < conversation.turns.length; i += 100) {
      const turns = conversation.turns.slice(i, i + 100);
      // The typed client waits out a 503 (extraction behind: nothing stored) and retries with the same Idempotency-Key.
      const { memories } = await client.memories.batch(
        turns.map((t) => ({
          namespace,
          content: t.text,
          speaker: t.speaker,
          occurred_at: t.occurredAt,
          source: `dataset:${conversation.key}`,
          metadata: { dia_id: t.diaId, conversation: conversation.key },
        })),
      );
      memories.forEach((m, j) => turnOf.set(m.id, { key: conversation.key, diaId: turns[j].diaId }));
    }
    log(`queued ${conversation.turns.length} turns of ${conversation.key}`);
  }
  const total = turnOf.size;
  let lastLog = 0;
  for (;;) {
    const { rows } = await pool.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM episode WHERE namespace = ANY($1) GROUP BY status',
      [namespaces],
    );
    const count = (s: string) => rows.find((r) => r.status === s)?.n ?? 0;
    const open = count('pending') + count('extracting');
    if (Date.now() - lastLog > 15_000 || open === 0) {
      lastLog = Date.now();
      log(`extraction: ${total - open}/${total} done (${count('failed')} failed), ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    if (open === 0) return { turnOf, failed: count('failed'), seconds: (Date.now() - started) / 1000, reused: false };
    if (Date.now() - started > timeoutMs) throw new Error(`extraction not finished after ${timeoutMs / 1000} s (${open} open)`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}
