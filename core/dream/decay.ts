import type { Queryable } from '../db/pool.js';
import { effectiveConfidenceSql } from '../retrieval/decaySql.js';

export interface DecayBatch {
  namespace: string;
  /** Last fact id of the previous batch (keyset order), or null. */
  after: string | null;
  now: Date;
  /** DECAY_FLOOR: below it a fact is stale. */
  floor: number;
  limit: number;
}

export interface DecayBatchResult {
  factsUpdated: number;
  staleMarked: number;
  /** Stale facts back above the floor (the floor was lowered). */
  staleCleared: number;
  lastId: string | null;
  full: boolean;
}

/**
 * One set-based statement per batch: every fact still believed (not
 * forgotten, not expired) gets its effective confidence at `now` (DESIGN §3,
 * the SQL twin of core/domain/decay.ts), `decayed_at = now`, and `stale` when
 * that falls below the floor. Reads keep computing effective confidence from
 * confidence, decay class and last confirmation at their own instant, so the
 * persisted value changes no answer; `stale` only hides the fact from default
 * reads. The same `now` gives the same values: a repeated batch writes the same row.
 *
 * None of the written columns is indexed, so PostgreSQL updates the rows in
 * place (HOT, room kept by the fact table's fillfactor): no index entries,
 * not even in the HNSW index, are written. Do not index them.
 */
export async function decayBatch(db: Queryable, batch: DecayBatch): Promise<DecayBatchResult> {
  // The batch is sorted by id for the keyset: in memory, not in temporary files (transaction-local).
  await db.query(`SET LOCAL work_mem = '256MB'`);
  const { rows } = await db.query<{ updated: number; stale_marked: number; stale_cleared: number; last_id: string | null }>(
    `WITH batch AS (
       SELECT f.ctid AS tid, f.id, f.stale AS was_stale, (${effectiveConfidenceSql('f', '$4::timestamptz')})::real AS ec
         FROM fact f
        WHERE f.namespace = $1 AND ($2::uuid IS NULL OR f.id > $2::uuid) AND f.forgotten_at IS NULL AND f.expired_at IS NULL
        ORDER BY f.id LIMIT $3),
     updated AS (
       -- By row address: the rows were just read in this statement (a row updated meanwhile is skipped tonight).
       UPDATE fact f SET effective_confidence = b.ec, decayed_at = $4::timestamptz, stale = b.ec < $5::real
         FROM batch b WHERE f.ctid = b.tid AND f.id = b.id
       RETURNING f.stale, b.was_stale)
     SELECT (SELECT count(*)::int FROM updated) AS updated,
            (SELECT count(*)::int FROM updated WHERE stale AND NOT was_stale) AS stale_marked,
            (SELECT count(*)::int FROM updated WHERE was_stale AND NOT stale) AS stale_cleared,
            -- uuid text sorts like the uuid: the batch's last id without another sort.
            (SELECT max(id::text) FROM batch) AS last_id`,
    [batch.namespace, batch.after, batch.limit, batch.now, batch.floor],
  );
  const r = rows[0];
  return {
    factsUpdated: r.updated,
    staleMarked: r.stale_marked,
    staleCleared: r.stale_cleared,
    lastId: r.last_id,
    full: r.updated >= batch.limit,
  };
}
