import type { AuditEntry } from '../audit/auditLog.js';
import type { Queryable } from '../db/pool.js';

/**
 * The survivor's aliases after a merge: its own, then the loser's name and
 * aliases; each spelling once (case-insensitive), never the survivor's own name.
 */
export function mergeAliases(survivorName: string, survivorAliases: string[], loserName: string, loserAliases: string[]): string[] {
  const seen = new Set([survivorName.trim().toLowerCase()]);
  const out: string[] = [];
  for (const alias of [...survivorAliases, loserName, ...loserAliases]) {
    const spelled = alias.trim();
    const key = spelled.toLowerCase();
    if (!spelled || seen.has(key)) continue;
    seen.add(key);
    out.push(spelled);
  }
  return out;
}

/** A merge proposal's two entities: `entity_ids [survivor, loser]`, or the payload's ids. */
export function mergePair(item: { entity_ids: string[]; payload: Record<string, unknown> }): { survivorId: string; loserId: string } | null {
  const survivorId = typeof item.payload.survivor_id === 'string' ? item.payload.survivor_id : item.entity_ids[0];
  const loserId = typeof item.payload.loser_id === 'string' ? item.payload.loser_id : item.entity_ids[1];
  if (!survivorId || !loserId || survivorId === loserId) return null;
  return { survivorId, loserId };
}

/** The merge_rejection key: the pair in id order. */
export function rejectionPair(a: string, b: string): [string, string] {
  return a < b ? [a, b] : [b, a];
}

interface EntityRow {
  id: string;
  name: string;
  aliases: string[];
  merged_into: string | null;
  forgotten_at: Date | null;
}

/** Why two entities can no longer be merged (one is gone or already merged elsewhere); null when they can. */
export async function mergeObstacle(db: Queryable, namespace: string, survivorId: string, loserId: string, lock = false): Promise<string | null> {
  const { rows } = await db.query<EntityRow>(
    `SELECT id, name, aliases, merged_into, forgotten_at FROM entity WHERE namespace = $1 AND id = ANY($2::uuid[]) ORDER BY id${lock ? ' FOR UPDATE' : ''}`,
    [namespace, [survivorId, loserId]],
  );
  const survivor = rows.find((r) => r.id === survivorId);
  const loser = rows.find((r) => r.id === loserId);
  if (!survivor || !loser) return 'an entity of the proposal no longer exists';
  if (survivor.forgotten_at || loser.forgotten_at) return 'an entity of the proposal was forgotten';
  if (loser.merged_into === survivorId) return null; // already merged: applying again is a no-op
  if (survivor.merged_into) return `the survivor was merged into ${survivor.merged_into}`;
  if (loser.merged_into) return `the loser was merged into ${loser.merged_into}`;
  return null;
}

export interface MergeResult {
  alreadyMerged: boolean;
  movedFacts: number;
  /** Loser facts that said what a survivor fact already said: [duplicate, survivor fact]. */
  confirmed: Array<[string, string]>;
  aliases: string[];
}

/**
 * Merges the loser into the survivor inside the caller's transaction (the
 * entities are locked by `mergeObstacle(..., lock=true)` first): identical
 * facts confirm the survivor's fact (count, last confirmation, provenance) and
 * the duplicate is expired and linked to it; every other fact moves (as subject
 * and as object); mentions move; the loser's name and aliases become aliases;
 * the loser keeps `merged_into`. Returns the audit entries to write.
 */
export async function mergeEntities(
  tx: Queryable,
  input: { namespace: string; survivorId: string; loserId: string; reviewId: string },
): Promise<{ result: MergeResult; audit: AuditEntry[] }> {
  const { namespace, survivorId, loserId, reviewId } = input;
  const { rows: entities } = await tx.query<EntityRow>(
    'SELECT id, name, aliases, merged_into, forgotten_at FROM entity WHERE namespace = $1 AND id = ANY($2::uuid[])',
    [namespace, [survivorId, loserId]],
  );
  const survivor = entities.find((e) => e.id === survivorId)!;
  const loser = entities.find((e) => e.id === loserId)!;
  if (loser.merged_into === survivorId) {
    return { result: { alreadyMerged: true, movedFacts: 0, confirmed: [], aliases: survivor.aliases }, audit: [] };
  }
  const audit: AuditEntry[] = [];

  await tx.query('SELECT id FROM fact WHERE namespace = $1 AND (subject_id = $2 OR object_id = $2) ORDER BY id FOR UPDATE', [namespace, loserId]);
  // Live loser facts that, once moved, say exactly what a live survivor-side fact says.
  const { rows: duplicates } = await tx.query<{ duplicate: string; kept: string; count: number; last_confirmed_at: Date }>(
    `SELECT DISTINCT ON (l.id) l.id AS duplicate, s.id AS kept, l.confirmation_count AS count, l.last_confirmed_at
       FROM fact l
       JOIN fact s ON s.namespace = l.namespace AND s.scope_user = l.scope_user AND s.predicate = l.predicate
        AND s.subject_id = CASE WHEN l.subject_id = $2 THEN $3::uuid ELSE l.subject_id END
        AND s.object_id IS NOT DISTINCT FROM CASE WHEN l.object_id = $2 THEN $3::uuid ELSE l.object_id END
        AND (l.object_id IS NOT NULL OR lower(s.value) IS NOT DISTINCT FROM lower(l.value))
        AND s.subject_id <> $2 AND s.object_id IS DISTINCT FROM $2::uuid
        AND s.expired_at IS NULL AND s.forgotten_at IS NULL
      WHERE l.namespace = $1 AND (l.subject_id = $2 OR l.object_id = $2) AND l.expired_at IS NULL AND l.forgotten_at IS NULL
      ORDER BY l.id, s.confirmation_count DESC, s.recorded_at, s.id`,
    [namespace, loserId, survivorId],
  );
  for (const d of duplicates) {
    const { rows } = await tx.query<{ confirmation_count: number; last_confirmed_at: Date }>(
      `UPDATE fact SET confirmation_count = confirmation_count + $2, last_confirmed_at = GREATEST(last_confirmed_at, $3), updated_at = now()
        WHERE id = $1 RETURNING confirmation_count, last_confirmed_at`,
      [d.kept, d.count, d.last_confirmed_at],
    );
    // The duplicate's episodes now support the survivor's fact (its creation confirms it).
    await tx.query(
      `INSERT INTO fact_episode (fact_id, episode_id, relation, created_at)
       SELECT $1, episode_id, CASE WHEN relation = 'created' THEN 'confirmed' ELSE relation END, created_at FROM fact_episode WHERE fact_id = $2
       ON CONFLICT DO NOTHING`,
      [d.kept, d.duplicate],
    );
    await tx.query(
      `UPDATE fact SET expired_at = now(), invalidated_by = $2, properties = properties || $3::jsonb, updated_at = now() WHERE id = $1`,
      [d.duplicate, d.kept, JSON.stringify({ merged_duplicate_of: d.kept, merge_review: reviewId })],
    );
    audit.push(
      { action: 'fact.confirmed', targetType: 'fact', targetId: d.kept, after: { ...rows[0], by_merge_of: d.duplicate } },
      { action: 'fact.merged_duplicate', targetType: 'fact', targetId: d.duplicate, before: { expired_at: null }, after: { invalidated_by: d.kept } },
    );
  }

  const moved = await tx.query<{ id: string; subject_id: string; object_id: string | null }>(
    `UPDATE fact SET subject_id = CASE WHEN subject_id = $2 THEN $3::uuid ELSE subject_id END,
                     object_id = CASE WHEN object_id = $2 THEN $3::uuid ELSE object_id END, updated_at = now()
      WHERE namespace = $1 AND (subject_id = $2 OR object_id = $2) RETURNING id, subject_id, object_id`,
    [namespace, loserId, survivorId],
  );
  for (const f of moved.rows) {
    audit.push({ action: 'fact.moved', targetType: 'fact', targetId: f.id, before: { entity_id: loserId }, after: { entity_id: survivorId, subject_id: f.subject_id, object_id: f.object_id } });
  }

  await tx.query(
    `INSERT INTO entity_episode (entity_id, episode_id, surface, created_at)
     SELECT $2, episode_id, surface, created_at FROM entity_episode WHERE entity_id = $1 ON CONFLICT DO NOTHING`,
    [loserId, survivorId],
  );
  await tx.query('DELETE FROM entity_episode WHERE entity_id = $1', [loserId]);

  const aliases = mergeAliases(survivor.name, survivor.aliases, loser.name, loser.aliases);
  await tx.query(
    `UPDATE entity s SET aliases = $3, first_seen_at = LEAST(s.first_seen_at, l.first_seen_at), last_seen_at = GREATEST(s.last_seen_at, l.last_seen_at),
            updated_at = now()
       FROM entity l WHERE s.id = $1 AND l.id = $2`,
    [survivorId, loserId, aliases],
  );
  await tx.query('UPDATE entity SET merged_into = $2, updated_at = now() WHERE id = $1', [loserId, survivorId]);
  // Entities merged into the loser earlier now point straight at the survivor (chains stay one hop).
  const repointed = await tx.query<{ id: string }>(
    'UPDATE entity SET merged_into = $3, updated_at = now() WHERE namespace = $1 AND merged_into = $2 AND id <> $2 RETURNING id',
    [namespace, loserId, survivorId],
  );
  audit.push(
    { action: 'entity.merged', targetType: 'entity', targetId: loserId, before: { merged_into: null, name: loser.name }, after: { merged_into: survivorId, review_id: reviewId } },
    { action: 'entity.merge_survivor', targetType: 'entity', targetId: survivorId, before: { aliases: survivor.aliases }, after: { aliases, absorbed: loserId, moved_facts: moved.rowCount ?? 0, confirmed_facts: duplicates.length } },
    ...repointed.rows.map((r) => ({ action: 'entity.merged', targetType: 'entity', targetId: r.id, before: { merged_into: loserId }, after: { merged_into: survivorId } })),
  );
  return {
    result: { alreadyMerged: false, movedFacts: moved.rowCount ?? 0, confirmed: duplicates.map((d) => [d.duplicate, d.kept]), aliases },
    audit,
  };
}

/** Remembers a rejected proposal so the dream does not propose the same pair again. */
export async function rememberRejectedMerge(tx: Queryable, input: { namespace: string; a: string; b: string; reviewId: string }): Promise<AuditEntry[]> {
  const [entityA, entityB] = rejectionPair(input.a, input.b);
  const { rowCount } = await tx.query(
    'INSERT INTO merge_rejection (namespace, entity_a, entity_b, review_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
    [input.namespace, entityA, entityB, input.reviewId],
  );
  return rowCount ? [{ action: 'merge.rejected', targetType: 'entity', targetId: entityA, after: { entity_a: entityA, entity_b: entityB, review_id: input.reviewId } }] : [];
}
