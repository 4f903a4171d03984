import type { Queryable } from '../db/pool.js';
import { classifySensitivity } from '../domain/sensitivity.js';
import type { Sensitivity } from '../domain/types.js';
import { JsonObjectStream } from './jsonStream.js';

/** Rows per query: a page is all an export holds in memory at once. */
export const EXPORT_PAGE_SIZE = 500;

export interface ExportRequest {
  namespace: string;
  userId: string;
  /** Operator and admin keys see `confidential` rows; nobody sees `restricted` ones. */
  includeConfidential: boolean;
  /** Soft-deleted rows too (operators only; the route checks the role). */
  includeForgotten: boolean;
  now: Date;
  pageSize?: number;
}

/** The sections of the document, in order; each names the table its rows come from. */
export const EXPORT_SECTIONS = [
  'episodes',
  'facts',
  'entities',
  'work_sessions',
  'session_turns',
  'session_summaries',
  'persistent_tasks',
  'task_bursts',
  'review_items',
  'audit',
] as const;
type Section = (typeof EXPORT_SECTIONS)[number];

const RANK: Record<Sensitivity, number> = { public: 0, internal: 1, confidential: 2, restricted: 3 };
const BY_RANK: Sensitivity[] = ['public', 'internal', 'confidential', 'restricted'];
/** SQL: the rank of a sensitivity column (0 public … 3 restricted), for "the most sensitive of". */
const rankSql = (col: string) => `(array_position(ARRAY['public','internal','confidential','restricted'], ${col}) - 1)`;

/** Counts of what the document left out, per sensitivity and section. */
type Withheld = Record<'confidential' | 'restricted', Partial<Record<Section, number>>>;

/** What may be shown, and a tally of what was not. */
class Disclosure {
  readonly withheld: Withheld = { confidential: {}, restricted: {} };
  constructor(private readonly includeConfidential: boolean) {}

  allows(section: Section, sensitivity: Sensitivity): boolean {
    const hidden = sensitivity === 'restricted' || (sensitivity === 'confidential' && !this.includeConfidential);
    if (hidden) {
      const bucket = this.withheld[sensitivity as 'confidential' | 'restricted'];
      bucket[section] = (bucket[section] ?? 0) + 1;
    }
    return !hidden;
  }
}

/** Stored text has no sensitivity column (episodes, turns, summaries, task intents): the creation-time classifier decides. */
function textSensitivity(...texts: Array<string | null | undefined>): Sensitivity {
  return texts.reduce<Sensitivity>((worst, t) => {
    const s = t ? classifySensitivity(t) : 'internal';
    return RANK[s] > RANK[worst] ? s : worst;
  }, 'internal');
}

/**
 * Pages through a keyset-ordered query: `page(after)` returns the next rows
 * after the last one seen (null: the first page). Yields rows one by one.
 */
async function* keyset<R>(db: Queryable, page: (after: R | null) => { sql: string; params: unknown[] }, size: number): AsyncGenerator<R> {
  let after: R | null = null;
  for (;;) {
    const { sql, params } = page(after);
    const { rows } = await db.query(`${sql} LIMIT ${size}`, params);
    for (const row of rows as R[]) yield row;
    if (rows.length < size) return;
    after = rows[rows.length - 1] as R;
  }
}

async function* filtered<R extends object>(rows: AsyncGenerator<R>, section: Section, disclosure: Disclosure, sensitivity: (row: R) => Sensitivity) {
  for await (const row of rows) if (disclosure.allows(section, sensitivity(row))) yield row;
}

/** Strips the columns only used for paging or disclosure. */
async function* without<R extends object>(rows: AsyncIterable<R>, ...keys: string[]) {
  for await (const row of rows) {
    const copy: Record<string, unknown> = { ...(row as Record<string, unknown>) };
    for (const k of keys) delete copy[k];
    yield copy;
  }
}

/**
 * Streams everything the namespace holds about one user as one JSON document
 * (DESIGN §1: the person the memory is about may take it away). Each section
 * is read page by page on one connection; `withheld` at the end counts, per
 * sensitivity and section, the rows the requester's role may not see.
 */
export async function streamUserExport(db: Queryable, out: JsonObjectStream, req: ExportRequest): Promise<void> {
  const size = req.pageSize ?? EXPORT_PAGE_SIZE;
  const disclosure = new Disclosure(req.includeConfidential);
  const live = (a: string) => (req.includeForgotten ? 'true' : `${a}.forgotten_at IS NULL`);
  const ns = req.namespace;
  const user = req.userId;
  const counts: Partial<Record<Section, number>> = {};

  await out.open();
  await out.field('namespace', ns);
  await out.field('user_id', user);
  await out.field('exported_at', req.now.toISOString());
  await out.field('includes', { confidential: req.includeConfidential, forgotten: req.includeForgotten });

  type Episode = { id: string; content: string };
  counts.episodes = await out.array(
    'episodes',
    filtered(
      keyset<Episode>(
        db,
        (after) => ({
          sql: `SELECT e.id, e.content, e.source, e.metadata, e.speaker, e.agent_id, e.run_id, e.task_id, e.occurred_at, e.recorded_at,
                       e.timezone, e.status, e.error, e.forgotten_at
                  FROM episode e WHERE e.namespace = $1 AND e.user_id = $2 AND ${live('e')} AND e.id > $3 ORDER BY e.id`,
          params: [ns, user, after?.id ?? '00000000-0000-0000-0000-000000000000'],
        }),
        size,
      ),
      'episodes',
      disclosure,
      (r) => textSensitivity(r.content),
    ),
  );

  type FactRow = { id: string; sensitivity: Sensitivity; ends_rank: number };
  counts.facts = await out.array(
    'facts',
    without(
      filtered(
        keyset<FactRow>(
          db,
          (after) => ({
            sql: `SELECT f.id, f.subject_id, s.name AS subject_name, f.predicate, f.predicate_raw, f.family, f.object_id, o.name AS object_name, f.value,
                         f.fact_text, f.memory_kind, f.importance, f.confidence, f.decay_class, f.last_confirmed_at, f.confirmation_count,
                         f.valid_from, f.invalid_at, f.recorded_at, f.expired_at, f.invalidated_by,
                         ARRAY(SELECT p.id FROM fact p WHERE p.invalidated_by = f.id ORDER BY p.valid_from NULLS FIRST, p.id) AS supersedes,
                         f.source, f.sensitivity, f.previous_values, f.properties, f.stale, f.forgotten_at,
                         ARRAY(SELECT fe.episode_id FROM fact_episode fe WHERE fe.fact_id = f.id ORDER BY fe.created_at) AS episode_ids,
                         greatest(${rankSql('s.sensitivity')}, coalesce(${rankSql('o.sensitivity')}, 0)) AS ends_rank
                    FROM fact f JOIN entity s ON s.id = f.subject_id LEFT JOIN entity o ON o.id = f.object_id
                   WHERE f.namespace = $1 AND f.scope_user = $2 AND ${live('f')} AND f.id > $3
                   ORDER BY f.id`,
            params: [ns, user, after?.id ?? '00000000-0000-0000-0000-000000000000'],
          }),
          size,
        ),
        'facts',
        disclosure,
        // A fact naming a withheld entity would disclose it: the more sensitive of the two decides.
        (r) => BY_RANK[Math.max(RANK[r.sensitivity], r.ends_rank)],
      ),
      'ends_rank',
    ),
  );

  type EntityRow = { id: string; sensitivity: Sensitivity };
  counts.entities = await out.array(
    'entities',
    filtered(
      keyset<EntityRow>(
        db,
        (after) => ({
          sql: `SELECT n.id, n.type, n.name, n.aliases, n.summary, n.properties, n.sensitivity, n.merged_into, n.first_seen_at, n.last_seen_at,
                       n.created_at, n.forgotten_at
                  FROM entity n WHERE n.namespace = $1 AND n.scope_user = $2 AND ${live('n')} AND n.id > $3 ORDER BY n.id`,
          params: [ns, user, after?.id ?? '00000000-0000-0000-0000-000000000000'],
        }),
        size,
      ),
      'entities',
      disclosure,
      (r) => r.sensitivity,
    ),
  );

  type SessionRow = { id: string; summary: string | null };
  counts.work_sessions = await out.array(
    'work_sessions',
    filtered(
      keyset<SessionRow>(
        db,
        (after) => ({
          sql: `SELECT id, task_id, status, agent_id, ttl_seconds, persistent_task_id, summary, summarized_through, turn_count,
                       last_activity_at, expires_at, archived_at, workflow_id, created_at
                  FROM work_session WHERE namespace = $1 AND user_id = $2 AND id > $3 ORDER BY id`,
          params: [ns, user, after?.id ?? '00000000-0000-0000-0000-000000000000'],
        }),
        size,
      ),
      'work_sessions',
      disclosure,
      (r) => textSensitivity(r.summary),
    ),
  );

  type TurnRow = { session_id: string; turn_index: number; content: string; tool_result: unknown };
  counts.session_turns = await out.array(
    'session_turns',
    filtered(
      keyset<TurnRow>(
        db,
        (after) => ({
          sql: `SELECT t.session_id, t.turn_index, t.role, t.content, t.tool_result, t.created_at
                  FROM session_turn t JOIN work_session w ON w.id = t.session_id
                 WHERE w.namespace = $1 AND w.user_id = $2 AND (t.session_id, t.turn_index) > ($3::uuid, $4::int)
                 ORDER BY t.session_id, t.turn_index`,
          params: [ns, user, after?.session_id ?? '00000000-0000-0000-0000-000000000000', after?.turn_index ?? -1],
        }),
        size,
      ),
      'session_turns',
      disclosure,
      (r) => textSensitivity(r.content, r.tool_result === null || r.tool_result === undefined ? null : JSON.stringify(r.tool_result)),
    ),
  );

  type SummaryRow = { id: string; content: string };
  counts.session_summaries = await out.array(
    'session_summaries',
    filtered(
      keyset<SummaryRow>(
        db,
        (after) => ({
          sql: `SELECT s.id, s.session_id, s.through_turn, s.final, s.content, s.episode_id, s.created_at
                  FROM session_summary s JOIN work_session w ON w.id = s.session_id
                 WHERE w.namespace = $1 AND w.user_id = $2 AND s.id > $3 ORDER BY s.id`,
          params: [ns, user, after?.id ?? '00000000-0000-0000-0000-000000000000'],
        }),
        size,
      ),
      'session_summaries',
      disclosure,
      (r) => textSensitivity(r.content),
    ),
  );

  type TaskRow = { id: string; intent: string; progress: unknown };
  counts.persistent_tasks = await out.array(
    'persistent_tasks',
    filtered(
      keyset<TaskRow>(
        db,
        (after) => ({
          sql: `SELECT id, intent, schedule, status, progress, error_budget, error_budget_remaining, webhook_url, agent_id, workflow_id,
                       current_burst, next_burst_at, created_at, updated_at, finished_at
                  FROM persistent_task WHERE namespace = $1 AND user_id = $2 AND id > $3 ORDER BY id`,
          params: [ns, user, after?.id ?? '00000000-0000-0000-0000-000000000000'],
        }),
        size,
      ),
      'persistent_tasks',
      disclosure,
      (r) => textSensitivity(r.intent, JSON.stringify(r.progress ?? null)),
    ),
  );

  type BurstRow = { task_id: string; burst_index: number; response: unknown };
  counts.task_bursts = await out.array(
    'task_bursts',
    filtered(
      keyset<BurstRow>(
        db,
        (after) => ({
          sql: `SELECT b.task_id, b.burst_index, b.scheduled_at, b.started_at, b.finished_at, b.outcome, b.http_status, b.error, b.response, b.writes
                  FROM task_burst b JOIN persistent_task t ON t.id = b.task_id
                 WHERE t.namespace = $1 AND t.user_id = $2 AND (b.task_id, b.burst_index) > ($3::uuid, $4::int)
                 ORDER BY b.task_id, b.burst_index`,
          params: [ns, user, after?.task_id ?? '00000000-0000-0000-0000-000000000000', after?.burst_index ?? -1],
        }),
        size,
      ),
      'task_bursts',
      disclosure,
      (r) => textSensitivity(JSON.stringify(r.response ?? null)),
    ),
  );

  // Review items and audit rows about the user's rows: the most sensitive row they touch decides.
  type ReviewRow = { id: string; touch_rank: number | null };
  counts.review_items = await out.array(
    'review_items',
    without(
      filtered(
        keyset<ReviewRow>(
          db,
          (after) => ({
            sql: `SELECT r.id, r.kind, r.status, r.title, r.payload, r.fact_ids, r.entity_ids, r.episode_id, r.resolution, r.decision,
                         r.decided_at, r.decided_by, r.created_at, r.resolved_at,
                         greatest((SELECT max(${rankSql('f.sensitivity')}) FROM fact f WHERE f.id = ANY(r.fact_ids)),
                                  (SELECT max(${rankSql('n.sensitivity')}) FROM entity n WHERE n.id = ANY(r.entity_ids))) AS touch_rank
                    FROM review_item r
                   WHERE r.namespace = $1 AND r.id > $3 AND (
                         r.episode_id IN (SELECT id FROM episode WHERE namespace = $1 AND user_id = $2)
                      OR EXISTS (SELECT 1 FROM fact f WHERE f.id = ANY(r.fact_ids) AND f.namespace = $1 AND f.scope_user = $2)
                      OR EXISTS (SELECT 1 FROM entity n WHERE n.id = ANY(r.entity_ids) AND n.namespace = $1 AND n.scope_user = $2)
                      OR r.payload->>'task_id' IN (SELECT id::text FROM persistent_task WHERE namespace = $1 AND user_id = $2))
                   ORDER BY r.id`,
            params: [ns, user, after?.id ?? '00000000-0000-0000-0000-000000000000'],
          }),
          size,
        ),
        'review_items',
        disclosure,
        (r) => BY_RANK[r.touch_rank ?? 1],
      ),
      'touch_rank',
    ),
  );

  type AuditRow = { id: string; target_rank: number | null };
  counts.audit = await out.array(
    'audit',
    without(
      filtered(
        keyset<AuditRow>(
          db,
          (after) => ({
            sql: `SELECT a.id::text AS id, a.actor, a.action, a.target_type, a.target_id, a.before, a.after, a.request_id, a.workflow_id, a.run_id,
                         a.episode_id, a.created_at,
                         CASE a.target_type
                           WHEN 'fact' THEN (SELECT ${rankSql('f.sensitivity')} FROM fact f WHERE f.id::text = a.target_id)
                           WHEN 'entity' THEN (SELECT ${rankSql('n.sensitivity')} FROM entity n WHERE n.id::text = a.target_id)
                         END AS target_rank
                    FROM audit_log a
                   WHERE a.namespace = $1 AND a.id > $3::bigint AND (
                         a.episode_id IN (SELECT id FROM episode WHERE namespace = $1 AND user_id = $2)
                      OR (a.target_type = 'episode' AND a.target_id IN (SELECT id::text FROM episode WHERE namespace = $1 AND user_id = $2))
                      OR (a.target_type = 'fact' AND a.target_id IN (SELECT id::text FROM fact WHERE namespace = $1 AND scope_user = $2))
                      OR (a.target_type = 'entity' AND a.target_id IN (SELECT id::text FROM entity WHERE namespace = $1 AND scope_user = $2))
                      OR (a.target_type = 'work_session' AND a.target_id IN (SELECT id::text FROM work_session WHERE namespace = $1 AND user_id = $2))
                      OR (a.target_type = 'persistent_task' AND a.target_id IN (SELECT id::text FROM persistent_task WHERE namespace = $1 AND user_id = $2)))
                   ORDER BY a.id`,
            params: [ns, user, after?.id ?? '0'],
          }),
          size,
        ),
        'audit',
        disclosure,
        (r) => BY_RANK[r.target_rank ?? 1],
      ),
      'target_rank',
    ),
  );

  await out.field('counts', counts);
  await out.field('withheld', {
    reason: req.includeConfidential
      ? 'restricted rows (credentials, identity and account numbers) are never exported'
      : 'restricted rows are never exported; confidential rows (health, money) only to operator and admin keys',
    by_sensitivity: disclosure.withheld,
  });
  await out.close();
}
