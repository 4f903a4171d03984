import { writeAudit, type AuditEntry } from '../core/audit/auditLog.js';
import { withTransaction, type PoolClient } from '../core/db/pool.js';
import type { Deps } from '../core/deps.js';
import { nameKey as canonicalKey } from '../core/domain/canonical.js';
import { isSingleValued } from '../core/domain/predicates.js';
import type { FactCandidate } from '../core/extraction/types.js';
import { planWrites } from '../core/ingest/contradiction.js';
import type { TimedFact } from '../core/ingest/contracts.js';
import { applyRechains } from './commitStage.js';
import { loadChains } from './existingFacts.js';

const ACTOR = 'system:history-order';
const MOOT_REASON = 'history order: the values of a single-valued predicate form one chain in world time; this late value was placed in it as history, no decision needed';

interface HeldBackFact {
  id: string;
  namespace: string;
  scope_user: string;
  subject_id: string;
  subject_name: string;
  predicate: string;
  predicate_raw: string;
  family: FactCandidate['family'];
  object_id: string | null;
  value: string | null;
  fact_text: string;
  memory_kind: FactCandidate['memory_kind'];
  importance: number;
  confidence: number;
  decay_class: TimedFact['decayClass'];
  sensitivity: TimedFact['sensitivity'];
  valid_from: Date | null;
  invalid_at: Date | null;
  recorded_at: Date;
  against_valid_from: Date | null;
}

/**
 * Until issue 24 a late value with an earlier `valid_from` than the current
 * one was arbitrated by confidence: at equal confidence it was stored held
 * back (expired, `pending_review`) with a `conflict` review item. Under the
 * chain rule such a value is plain history. This re-chains those values once
 * per namespace (`namespace.history_rechained_at`), under the same slot locks
 * as the commit, and closes the review items the rule makes moot (status
 * `resolved`, `resolution.reason`), audited. Idempotent: a namespace is marked
 * done in the transaction of its last item, and items already closed are skipped.
 * Conflicts of values that claim the same world time stay open: they still
 * need a person.
 */
export async function rechainStoredHistory(deps: Pick<Deps, 'pool' | 'logger'>): Promise<{ namespaces: number; rechained: number }> {
  const { rows: namespaces } = await deps.pool.query<{ id: string }>('SELECT id FROM namespace WHERE history_rechained_at IS NULL ORDER BY id');
  let rechained = 0;
  for (const { id: namespace } of namespaces) {
    const { rows: items } = await deps.pool.query<{ id: string }>(
      `SELECT id FROM review_item WHERE namespace = $1 AND kind = 'conflict' AND status IN ('open', 'escalated') AND cardinality(fact_ids) = 2 ORDER BY created_at, id`,
      [namespace],
    );
    for (const item of items) {
      if (await withTransaction(deps.pool, (tx) => rechainOne(tx, namespace, item.id))) rechained++;
    }
    await deps.pool.query('UPDATE namespace SET history_rechained_at = now() WHERE id = $1', [namespace]);
  }
  if (rechained) deps.logger.info({ namespaces: namespaces.length, rechained }, 're-chained history stored under the earlier rule');
  return { namespaces: namespaces.length, rechained };
}

async function rechainOne(tx: PoolClient, namespace: string, reviewId: string): Promise<boolean> {
  const { rows: items } = await tx.query<{ fact_ids: string[]; status: string }>('SELECT fact_ids, status FROM review_item WHERE id = $1 FOR UPDATE', [reviewId]);
  const item = items[0];
  if (!item || !['open', 'escalated'].includes(item.status)) return false;
  const [againstId, heldBackId] = item.fact_ids;
  const { rows } = await tx.query<HeldBackFact>(
    `SELECT f.id, f.namespace, f.scope_user, f.subject_id, s.name AS subject_name, f.predicate, f.predicate_raw, f.family, f.object_id, f.value,
            f.fact_text, f.memory_kind, f.importance, f.confidence, f.decay_class, f.sensitivity, f.valid_from, f.invalid_at, f.recorded_at,
            a.valid_from AS against_valid_from
       FROM fact f JOIN entity s ON s.id = f.subject_id JOIN fact a ON a.id = $3
      WHERE f.id = $2 AND f.namespace = $1 AND a.namespace = $1 AND f.forgotten_at IS NULL AND a.forgotten_at IS NULL
        AND f.expired_at IS NOT NULL AND f.invalid_at IS NULL AND f.properties ? 'pending_review'`,
    [namespace, heldBackId, againstId],
  );
  const held = rows[0];
  // Gone, already decided, or a real tie in world time: not this rule's business.
  if (!held || !isSingleValued(held.predicate) || held.valid_from?.getTime() === held.against_valid_from?.getTime()) return false;
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`fact:${namespace}:${held.scope_user}:${canonicalKey(held.subject_name)}:${held.predicate}`]);

  const fact = timedFactOf(held);
  const plan = planWrites([fact], await loadChains(tx, namespace, [fact]), held.recorded_at.toISOString());
  if (plan.reviews.length || plan.rejections.length || plan.refinements.length) return false; // it ties with another value after all
  const audit: AuditEntry[] = [];
  const placed = plan.inserts.find((f) => f.id === held.id);
  const before = { valid_from: held.valid_from?.toISOString() ?? null, invalid_at: null, pending_review: true };
  if (placed) {
    await tx.query(
      `UPDATE fact SET valid_from = $2, invalid_at = $3, invalidated_by = $4, expired_at = CASE WHEN $4::uuid IS NULL THEN NULL ELSE now() END,
              properties = properties - 'pending_review', updated_at = now()
        WHERE id = $1`,
      [held.id, placed.validFrom, placed.invalidAt, placed.invalidatedBy ?? null],
    );
    audit.push({ action: 'fact.rechained', targetType: 'fact', targetId: held.id, before, after: { valid_from: placed.validFrom, invalid_at: placed.invalidAt, invalidated_by: placed.invalidatedBy ?? null, review_id: reviewId } });
  } else {
    // The same value as its neighbour in the chain: a confirmation of that fact, which the held-back copy never was.
    for (const c of plan.confirmations) {
      await tx.query('UPDATE fact SET confirmation_count = confirmation_count + 1, updated_at = now() WHERE id = $1', [c.factId]);
      audit.push({ action: 'fact.confirmed', targetType: 'fact', targetId: c.factId, after: { by_held_back_fact: held.id, review_id: reviewId } });
    }
    await tx.query(`UPDATE fact SET properties = (properties - 'pending_review') || '{"merged_by_history_order": true}'::jsonb, updated_at = now() WHERE id = $1`, [held.id]);
  }
  for (const inv of plan.invalidations) {
    await tx.query('UPDATE fact SET invalid_at = $2, invalidated_by = $3, expired_at = now(), updated_at = now() WHERE id = $1 AND invalid_at IS NULL', [inv.factId, inv.invalidAt, inv.invalidatedBy]);
    audit.push({ action: 'fact.invalidated', targetType: 'fact', targetId: inv.factId, before: { invalid_at: null }, after: { invalid_at: inv.invalidAt, invalidated_by: inv.invalidatedBy } });
  }
  audit.push(...(await applyRechains(tx, plan.rechains ?? [], [])));
  const resolution = { reason: MOOT_REASON, fact_id: held.id, valid_from: placed?.validFrom ?? null, invalid_at: placed?.invalidAt ?? null };
  await tx.query(
    `UPDATE review_item SET status = 'resolved', resolution = $2, resolved_at = now(), decided_at = now(), decided_by = $3, updated_at = now() WHERE id = $1`,
    [reviewId, JSON.stringify(resolution), ACTOR],
  );
  audit.push({ action: 'review.closed', targetType: 'review_item', targetId: reviewId, before: { status: item.status }, after: { status: 'resolved', resolution } });
  await writeAudit(tx, { namespace, actor: ACTOR }, audit);
  return true;
}

function timedFactOf(f: HeldBackFact): TimedFact {
  return {
    id: f.id,
    subjectId: f.subject_id,
    objectId: f.object_id,
    decayClass: f.decay_class,
    sensitivity: f.sensitivity,
    singleValued: true,
    decision: { kind: 'new' },
    validFrom: f.valid_from?.toISOString() ?? null,
    invalidAt: null,
    candidate: {
      subject: f.subject_name,
      predicate: f.predicate,
      predicate_raw: f.predicate_raw,
      family: f.family,
      object: null,
      value: f.value,
      fact_text: f.fact_text,
      memory_kind: f.memory_kind,
      importance: Number(f.importance),
      confidence: Number(f.confidence),
      negated: false,
      time_expression: null,
    },
  };
}
