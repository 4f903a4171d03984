// What a chaos run checks in the database once the stack is quiet: nothing
// acknowledged is missing, nothing refused was stored, no episode is left
// pending or extracting, every commit wrote its audit rows, and the graph
// (compared with the same inputs extracted once, undisturbed) has no
// duplicated fact or entity.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { LoadReport } from './chaosLoad.js';

/** Episode statuses still waiting for extraction. */
const UNFINISHED = ['pending', 'extracting'];

export async function withClient<T>(url: string, fn: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}

export async function statusCounts(db: pg.Client): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM episode GROUP BY status ORDER BY status');
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Polls until no episode is pending or extracting (or the timeout); the seconds it took. */
export async function waitForQuiet(url: string, timeoutSeconds: number, onTick?: (counts: Record<string, number>) => void): Promise<{ seconds: number; quiet: boolean }> {
  const start = Date.now();
  for (;;) {
    const counts = await withClient(url, statusCounts).catch(() => null);
    if (counts) {
      onTick?.(counts);
      if (UNFINISHED.every((s) => !counts[s])) return { seconds: (Date.now() - start) / 1000, quiet: true };
    }
    if (Date.now() - start > timeoutSeconds * 1000) return { seconds: (Date.now() - start) / 1000, quiet: false };
    await sleep(2_000);
  }
}

export interface StoreCheck {
  lost: string[];
  lostTurns: number;
  refusedButStored: number;
  /** Logical writes stored more than once (a retry with the same Idempotency-Key must answer the first episode): the extra rows. */
  duplicatedWrites: number;
  stuck: number;
  statuses: Record<string, number>;
  audit: { extractedWithoutAuditRow: number; extractedWithSeveralAuditRows: number; factsWithoutAuditRow: number; entitiesWithoutAuditRow: number; turnsWithoutAuditRow: number };
}

export async function checkStore(db: pg.Client, load: LoadReport): Promise<StoreCheck> {
  const acknowledged = load.writes.filter((w) => w.outcome === 'acknowledged').map((w) => w.episodeId!);
  const { rows: present } = await db.query<{ id: string }>('SELECT id FROM episode WHERE id = ANY($1::uuid[])', [acknowledged]);
  const found = new Set(present.map((r) => r.id));
  const lost = acknowledged.filter((id) => !found.has(id));

  // A write answered only 503 (never a lost answer) must have stored nothing.
  const refused = load.writes.filter((w) => w.outcome === 'refused').map((w) => String(w.n));
  const { rows: refusedRows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM episode WHERE metadata->>'chaos_write' = ANY($1::text[])`, [refused]);

  const { rows: duplicatedRows } = await db.query<{ n: number }>(
    `SELECT coalesce(sum(n - 1), 0)::int AS n FROM (SELECT count(*) AS n FROM episode WHERE metadata ? 'chaos_write' GROUP BY metadata->>'chaos_write') w`,
  );

  const turns = load.turns.filter((t) => t.status === 202);
  const { rows: turnRows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM jsonb_to_recordset($1::jsonb) AS t(namespace text, task_id text, turn_index int, content text)
      WHERE NOT EXISTS (SELECT 1 FROM work_session s JOIN session_turn st ON st.session_id = s.id
                         WHERE s.namespace = t.namespace AND s.task_id = t.task_id AND st.turn_index = t.turn_index AND st.content = t.content)`,
    [JSON.stringify(turns.map((t) => ({ namespace: t.namespace, task_id: t.taskId, turn_index: t.turnIndex, content: t.content })))],
  );

  const statuses = await statusCounts(db);
  const stuck = UNFINISHED.reduce((sum, s) => sum + (statuses[s] ?? 0), 0);

  // Every commit writes its rows and its audit rows in one transaction: one `episode.extracted` per
  // extracted episode (two would mean a commit ran twice), a creation row per fact and entity, one per turn.
  const { rows: [audit] } = await db.query<StoreCheck['audit']>(
    `SELECT
       (SELECT count(*)::int FROM episode e WHERE e.status = 'extracted' AND NOT EXISTS
          (SELECT 1 FROM audit_log a WHERE a.target_type = 'episode' AND a.target_id = e.id::text AND a.action = 'episode.extracted')) AS "extractedWithoutAuditRow",
       (SELECT count(*)::int FROM (SELECT target_id FROM audit_log WHERE action = 'episode.extracted' GROUP BY target_id HAVING count(*) > 1) d) AS "extractedWithSeveralAuditRows",
       (SELECT count(*)::int FROM fact f WHERE NOT EXISTS
          (SELECT 1 FROM audit_log a WHERE a.target_type = 'fact' AND a.target_id = f.id::text AND a.action IN ('fact.created', 'fact.split'))) AS "factsWithoutAuditRow",
       (SELECT count(*)::int FROM entity en WHERE NOT EXISTS
          (SELECT 1 FROM audit_log a WHERE a.target_type = 'entity' AND a.target_id = en.id::text AND a.action = 'entity.created')) AS "entitiesWithoutAuditRow",
       (SELECT count(*)::int FROM session_turn st WHERE NOT EXISTS
          (SELECT 1 FROM audit_log a WHERE a.action = 'session.turn' AND a.target_id = st.session_id::text AND (a.after->>'turn_index')::int = st.turn_index)) AS "turnsWithoutAuditRow"`,
  );
  return { lost, lostTurns: turnRows[0].n, refusedButStored: refusedRows[0].n, duplicatedWrites: duplicatedRows[0].n, stuck, statuses, audit };
}

/** Per-namespace multisets of facts (subject, predicate, object or value) and entities (type, name). */
export interface GraphSnapshot {
  facts: Map<string, number>;
  entities: Map<string, number>;
}

export async function graphSnapshot(db: pg.Client): Promise<GraphSnapshot> {
  const { rows: facts } = await db.query<{ key: string; n: number }>(
    `SELECT concat_ws(' | ', f.namespace, f.scope_user, s.name, f.predicate, coalesce(o.name, f.value)) AS key, count(*)::int AS n
       FROM fact f JOIN entity s ON s.id = f.subject_id LEFT JOIN entity o ON o.id = f.object_id
      GROUP BY 1`,
  );
  const { rows: entities } = await db.query<{ key: string; n: number }>(
    `SELECT concat_ws(' | ', namespace, scope_user, type, name) AS key, count(*)::int AS n FROM entity GROUP BY 1`,
  );
  return { facts: new Map(facts.map((r) => [r.key, r.n])), entities: new Map(entities.map((r) => [r.key, r.n])) };
}

export interface GraphComparison {
  /** Rows beyond what the undisturbed run produced for the same key. */
  duplicateFacts: number;
  duplicateEntities: number;
  /** Keys only one of the two runs has (order effects, or a lost or spurious extraction). */
  onlyInChaos: string[];
  onlyInClean: string[];
  factKeys: number;
  entityKeys: number;
}

export function compareGraphs(chaos: GraphSnapshot, clean: GraphSnapshot): GraphComparison {
  const excess = (a: Map<string, number>, b: Map<string, number>) => [...a].reduce((sum, [k, n]) => sum + Math.max(0, n - (b.get(k) ?? n)), 0);
  const only = (a: Map<string, number>, b: Map<string, number>, prefix: string) => [...a.keys()].filter((k) => !b.has(k)).map((k) => `${prefix}: ${k}`);
  return {
    duplicateFacts: excess(chaos.facts, clean.facts),
    duplicateEntities: excess(chaos.entities, clean.entities),
    onlyInChaos: [...only(chaos.facts, clean.facts, 'fact'), ...only(chaos.entities, clean.entities, 'entity')],
    onlyInClean: [...only(clean.facts, chaos.facts, 'fact'), ...only(clean.entities, chaos.entities, 'entity')],
    factKeys: chaos.facts.size,
    entityKeys: chaos.entities.size,
  };
}

/** The inputs the chaos database holds, in the order they were stored: replayed into the clean database. */
export async function storedInputs(db: pg.Client): Promise<Array<Record<string, unknown>>> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT content, namespace, user_id, agent_id, speaker, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS occurred_at, metadata
       FROM episode ORDER BY recorded_at, id`,
  );
  return rows.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)));
}
