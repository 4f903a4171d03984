import type { AuditEntry } from '../audit/auditLog.js';
import type { Queryable } from '../db/pool.js';

/**
 * When the fact that lost a conflict stops holding in world time: where the
 * kept fact begins, or where the loser itself begins when that is later (it
 * then never held: an equal-time conflict, or a value the operator ruled out),
 * or now when neither time is known.
 */
export function loserInvalidAt(kept: { validFrom: Date | null }, loser: { validFrom: Date | null }, now: Date): Date {
  const known = [kept.validFrom, loser.validFrom].filter((d): d is Date => d !== null);
  if (known.length === 0) return now;
  return new Date(Math.max(...known.map((d) => d.getTime())));
}

interface FactRow {
  id: string;
  valid_from: Date | null;
  invalid_at: Date | null;
  expired_at: Date | null;
  invalidated_by: string | null;
  forgotten_at: Date | null;
  pending_review: boolean;
}

export interface ConflictResolution {
  keptFactId: string;
  invalidatedFactId: string;
  invalidAt: string;
}

/**
 * Applies an operator's choice inside the caller's transaction: the kept fact
 * is believed again if it was held back for review; the other one ends
 * (`invalid_at` per `loserInvalidAt`, `invalidated_by` the kept fact,
 * `expired_at` now). Null when a fact is missing or forgotten (nothing applied).
 */
export async function resolveConflict(
  tx: Queryable,
  input: { namespace: string; keepFactId: string; otherFactId: string; reviewId: string; now: Date },
): Promise<{ resolution: ConflictResolution; audit: AuditEntry[] } | { obstacle: string }> {
  const { rows } = await tx.query<FactRow>(
    `SELECT id, valid_from, invalid_at, expired_at, invalidated_by, forgotten_at, properties ? 'pending_review' AS pending_review
       FROM fact WHERE namespace = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE`,
    [input.namespace, [input.keepFactId, input.otherFactId]],
  );
  const kept = rows.find((r) => r.id === input.keepFactId);
  const other = rows.find((r) => r.id === input.otherFactId);
  if (!kept || !other) return { obstacle: 'a fact of the conflict no longer exists' };
  if (kept.forgotten_at) return { obstacle: 'the chosen fact was forgotten' };
  const audit: AuditEntry[] = [];
  if (kept.pending_review) {
    await tx.query(
      `UPDATE fact SET expired_at = NULL, properties = (properties - 'pending_review') || $2::jsonb, updated_at = now() WHERE id = $1`,
      [kept.id, JSON.stringify({ kept_by_review: input.reviewId })],
    );
    audit.push({ action: 'fact.review_kept', targetType: 'fact', targetId: kept.id, before: { expired_at: kept.expired_at }, after: { expired_at: null, review_id: input.reviewId } });
  }
  const computed = loserInvalidAt({ validFrom: kept.valid_from }, { validFrom: other.valid_from }, input.now);
  // An end it already had that comes sooner stays; the loser is no longer believed either way.
  const updated = await tx.query<{ invalid_at: Date }>(
    `UPDATE fact SET invalid_at = LEAST(invalid_at, $2::timestamptz), invalidated_by = $3, expired_at = COALESCE(expired_at, now()),
            properties = (properties - 'pending_review') || $4::jsonb, updated_at = now()
      WHERE id = $1 RETURNING invalid_at`,
    [other.id, computed, kept.id, JSON.stringify({ invalidated_by_review: input.reviewId })],
  );
  const invalidAt = updated.rows[0].invalid_at;
  audit.push({
    action: 'fact.invalidated',
    targetType: 'fact',
    targetId: other.id,
    before: { invalid_at: other.invalid_at, expired_at: other.expired_at, invalidated_by: other.invalidated_by },
    after: { invalid_at: invalidAt.toISOString(), invalidated_by: kept.id, review_id: input.reviewId },
  });
  return { resolution: { keptFactId: kept.id, invalidatedFactId: other.id, invalidAt: invalidAt.toISOString() }, audit };
}
