import type { AuditCause } from '../audit/auditLog.js';
import { writeAudit } from '../audit/auditLog.js';
import { nameKey } from '../domain/canonical.js';
import type { Queryable } from '../db/pool.js';
import { organizationNameKey } from '../entities/nameKey.js';

/** Name embeddings (by spelling) closer than this are the same name spelt a little differently (DESIGN §4: cosine > 0.92). */
export const NAME_SIMILARITY_THRESHOLD = 0.92;
/** Nearest names looked at per entity. */
const NEIGHBOURS = 5;
const HNSW_EF_SEARCH = 20;

export type DuplicateReason = 'shared_alias' | 'legal_suffix' | 'similar_name';
/** When a pair qualifies several ways, the most telling reason is reported. */
const REASON_RANK: Record<DuplicateReason, number> = { shared_alias: 0, legal_suffix: 1, similar_name: 2 };

export interface DuplicatesBatch {
  namespace: string;
  after: string | null;
  limit: number;
  cause: Omit<AuditCause, 'namespace'>;
}

export interface DuplicatesResult {
  entitiesChecked: number;
  pairsProposed: number;
  reviewIds: string[];
  lastId: string | null;
  full: boolean;
}

interface EntityRow {
  id: string;
  name: string;
  type: string;
  aliases: string[];
}

/** Live entities (not merged, not forgotten) of the namespace, in id order after `after`. */
const LIVE = (a: string) => `${a}.merged_into IS NULL AND ${a}.forgotten_at IS NULL`;
/** Candidates of the same namespace, user scope and type as `a`. */
const SAME_KIND = (a: string, b: string) => `${b}.namespace = ${a}.namespace AND ${b}.scope_user = ${a}.scope_user AND ${b}.type = ${a}.type AND ${b}.id <> ${a}.id AND ${LIVE(b)}`;

type Pair = { x: string; y: string; reason: DuplicateReason };

/** Names spelt alike: nearest neighbours in the name-embedding HNSW index above the threshold. */
async function similarNamePairs(db: Queryable, ids: string[]): Promise<Pair[]> {
  // A handful of neighbours above a high threshold: a short HNSW candidate list finds them (default 40).
  await db.query(`SET LOCAL hnsw.ef_search = ${HNSW_EF_SEARCH}`);
  const { rows } = await db.query<{ x: string; y: string }>(
    `SELECT a.id AS x, nb.id AS y FROM entity a
       CROSS JOIN LATERAL (SELECT b.id, b.name_embedding <=> a.name_embedding AS distance FROM entity b
                            WHERE ${SAME_KIND('a', 'b')} AND b.name_embedding IS NOT NULL
                            ORDER BY b.name_embedding <=> a.name_embedding LIMIT ${NEIGHBOURS}) nb
      WHERE a.id = ANY($1::uuid[]) AND a.name_embedding IS NOT NULL AND nb.distance < $2`,
    [ids, 1 - NAME_SIMILARITY_THRESHOLD],
  );
  return rows.map((r) => ({ ...r, reason: 'similar_name' }));
}

/** One entity's alias is another's alias (same spelling) or its name. */
async function sharedAliasPairs(db: Queryable, batch: EntityRow[]): Promise<Pair[]> {
  const withAliases = batch.filter((e) => e.aliases.length);
  if (!withAliases.length) return [];
  const { rows } = await db.query<{ x: string; y: string }>(
    `SELECT a.id AS x, b.id AS y FROM unnest($1::uuid[], $2::text[]) AS k(id, alias_keys)
       JOIN entity a ON a.id = k.id
       JOIN entity b ON ${SAME_KIND('a', 'b')}
                    AND (b.aliases && a.aliases OR b.name_key = ANY(string_to_array(k.alias_keys, chr(31))))`,
    [withAliases.map((e) => e.id), withAliases.map((e) => [...new Set(e.aliases.map(nameKey).filter(Boolean))].join('\u001f'))],
  );
  return rows.map((r) => ({ ...r, reason: 'shared_alias' }));
}

/**
 * Organizations whose names differ only by legal form or organizational
 * suffix ("Acme" / "Acme Corp", "Beacon" / "Beacon Capital GmbH"): candidates
 * are fetched by the base name (equal, or a prefix followed by a word) and
 * kept when their own key is the same.
 */
async function legalSuffixPairs(db: Queryable, batch: EntityRow[]): Promise<Pair[]> {
  const orgs = batch.filter((e) => e.type === 'organization').map((e) => ({ id: e.id, key: organizationNameKey(e.name) })).filter((o) => o.key);
  if (!orgs.length) return [];
  // Candidates: name_key equal to the base name, or the base name followed by more words
  // (starts_with: a plain prefix test, far cheaper per pair than ILIKE).
  const { rows } = await db.query<{ x: string; y: string; name: string; key: string }>(
    `SELECT a.id AS x, b.id AS y, b.name, k.key FROM unnest($1::uuid[], $2::text[]) AS k(id, key)
       JOIN entity a ON a.id = k.id
       JOIN entity b ON ${SAME_KIND('a', 'b')} AND starts_with(b.name_key || ' ', k.key || ' ')`,
    [orgs.map((o) => o.id), orgs.map((o) => o.key)],
  );
  return rows.filter((r) => organizationNameKey(r.name) === r.key).map((r) => ({ x: r.x, y: r.y, reason: 'legal_suffix' }));
}

/** One pair per unordered couple, with its most telling reason. */
export function uniquePairs(pairs: Pair[]): Array<{ lo: string; hi: string; reason: DuplicateReason }> {
  const byKey = new Map<string, { lo: string; hi: string; reason: DuplicateReason }>();
  for (const p of pairs) {
    const [lo, hi] = p.x < p.y ? [p.x, p.y] : [p.y, p.x];
    const key = `${lo}:${hi}`;
    const seen = byKey.get(key);
    if (!seen || REASON_RANK[p.reason] < REASON_RANK[seen.reason]) byKey.set(key, { lo, hi, reason: p.reason });
  }
  return [...byKey.values()];
}

/**
 * Opens one `merge` review item per candidate pair not rejected before
 * (`merge_rejection`) and not proposed before (`dedup_key` merge:<lo>:<hi>).
 * The survivor is the entity with more facts, then the one seen first. Never
 * merges: a person approves through the review workflow.
 */
async function proposeMerges(db: Queryable, namespace: string, pairs: Array<{ lo: string; hi: string; reason: DuplicateReason }>, cause: DuplicatesBatch['cause']): Promise<string[]> {
  if (!pairs.length) return [];
  const facts = (e: string) =>
    `(SELECT count(*) FROM fact f WHERE f.namespace = $1 AND (f.subject_id = ${e}.id OR f.object_id = ${e}.id) AND f.forgotten_at IS NULL AND f.expired_at IS NULL)`;
  const { rows } = await db.query<{ id: string; survivor_id: string; loser_id: string; payload: unknown }>(
    `WITH pair AS (SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::text[]) AS p(lo, hi, reason)),
     rated AS (
       SELECT p.lo, p.hi, p.reason, lo_e.name AS lo_name, hi_e.name AS hi_name,
              round((1 - (lo_e.name_embedding <=> hi_e.name_embedding))::numeric, 4)::float8 AS similarity,
              (${facts('lo_e')}, hi_e.first_seen_at, hi_e.id) > (${facts('hi_e')}, lo_e.first_seen_at, lo_e.id) AS lo_survives
         FROM pair p JOIN entity lo_e ON lo_e.id = p.lo AND lo_e.namespace = $1 JOIN entity hi_e ON hi_e.id = p.hi AND hi_e.namespace = $1
        WHERE NOT EXISTS (SELECT 1 FROM merge_rejection r WHERE r.namespace = $1 AND r.entity_a = p.lo AND r.entity_b = p.hi)),
     chosen AS (
       SELECT lo, hi, reason, similarity,
              CASE WHEN lo_survives THEN lo ELSE hi END AS survivor_id, CASE WHEN lo_survives THEN hi ELSE lo END AS loser_id,
              CASE WHEN lo_survives THEN lo_name ELSE hi_name END AS survivor_name, CASE WHEN lo_survives THEN hi_name ELSE lo_name END AS loser_name
         FROM rated)
     INSERT INTO review_item (namespace, kind, title, payload, entity_ids, dedup_key)
     SELECT $1, 'merge', format('Merge "%s" into "%s"?', loser_name, survivor_name),
            jsonb_build_object('survivor_id', survivor_id, 'loser_id', loser_id, 'reason', reason, 'similarity', similarity),
            ARRAY[survivor_id, loser_id], 'merge:' || lo || ':' || hi
       FROM chosen
     ON CONFLICT (dedup_key) DO NOTHING
     RETURNING id, entity_ids[1] AS survivor_id, entity_ids[2] AS loser_id, payload`,
    [namespace, pairs.map((p) => p.lo), pairs.map((p) => p.hi), pairs.map((p) => p.reason)],
  );
  await writeAudit(
    db,
    { ...cause, namespace },
    rows.map((r) => ({ action: 'review.merge_proposed', targetType: 'review_item', targetId: r.id, after: r.payload })),
  );
  return rows.map((r) => r.id);
}

/**
 * The duplicate-entity pass over one batch of a namespace's live entities:
 * same type and user scope, and a similar spelling (name-embedding cosine),
 * a shared alias, or the same organization name but for its legal form.
 */
export async function duplicatesBatch(db: Queryable, batch: DuplicatesBatch): Promise<DuplicatesResult> {
  const { rows: entities } = await db.query<EntityRow>(
    `SELECT n.id, n.name, n.type, n.aliases FROM entity n
      WHERE n.namespace = $1 AND ($2::uuid IS NULL OR n.id > $2::uuid) AND ${LIVE('n')}
      ORDER BY n.id LIMIT $3`,
    [batch.namespace, batch.after, batch.limit],
  );
  if (!entities.length) return { entitiesChecked: 0, pairsProposed: 0, reviewIds: [], lastId: null, full: false };
  const ids = entities.map((e) => e.id);
  const pairs = uniquePairs([
    ...(await sharedAliasPairs(db, entities)),
    ...(await legalSuffixPairs(db, entities)),
    ...(await similarNamePairs(db, ids)),
  ]);
  const reviewIds = await proposeMerges(db, batch.namespace, pairs, batch.cause);
  return {
    entitiesChecked: entities.length,
    pairsProposed: reviewIds.length,
    reviewIds,
    lastId: ids[ids.length - 1],
    full: entities.length >= batch.limit,
  };
}
