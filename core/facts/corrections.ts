import { nameKey } from '../domain/canonical.js';
import { toVectorSql, withTransaction } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { writeAudit } from '../audit/auditLog.js';
import { forgetGraphRow } from '../graph/forgetRow.js';
import { FORGOTTEN_BY, type Requester } from '../memories/forget.js';
import { factSelect, factView, type FactView } from './query.js';

/** The fields a correction may change; sensitivity is set at creation and never changes. */
export interface FactCorrection {
  fact_text?: string;
  value?: string | null;
  confidence?: number;
  importance?: number;
  valid_from?: string | null;
  invalid_at?: string | null;
  reason?: string;
}

/** A correction that is well-formed but does not fit the fact (e.g. its validity would end before it starts). */
export class InvalidCorrection extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidCorrection';
  }
}

interface CorrectableRow {
  namespace: string;
  scope_user: string;
  object_id: string | null;
  object_name: string | null;
  object_type: string | null;
  fact_text: string;
  value: string | null;
  confidence: number;
  importance: number;
  valid_from: Date | null;
  invalid_at: Date | null;
}

type Snapshot = Pick<CorrectableRow, 'fact_text' | 'value' | 'confidence' | 'importance'> & { valid_from: string | null; invalid_at: string | null };

function snapshot(row: Pick<CorrectableRow, keyof Snapshot>): Snapshot {
  return {
    fact_text: row.fact_text,
    value: row.value,
    confidence: Number(row.confidence),
    importance: Number(row.importance),
    valid_from: row.valid_from ? row.valid_from.toISOString() : null,
    invalid_at: row.invalid_at ? row.invalid_at.toISOString() : null,
  };
}

function applied(old: Snapshot, c: FactCorrection): Snapshot {
  const iso = (v: string | null | undefined, fallback: string | null) => (v === undefined ? fallback : v === null ? null : new Date(v).toISOString());
  return {
    fact_text: c.fact_text ?? old.fact_text,
    value: c.value === undefined ? old.value : c.value,
    confidence: c.confidence ?? old.confidence,
    importance: c.importance ?? old.importance,
    valid_from: iso(c.valid_from, old.valid_from),
    invalid_at: iso(c.invalid_at, old.invalid_at),
  };
}

const CORRECTABLE = `SELECT f.namespace, f.scope_user, f.object_id, o.name AS object_name, o.type AS object_type, f.fact_text, f.value,
                            f.confidence, f.importance, f.valid_from, f.invalid_at
                       FROM fact f LEFT JOIN entity o ON o.id = f.object_id WHERE f.id = $1 AND f.forgotten_at IS NULL`;

/**
 * A new value without a new text: the text says the new value where it said
 * the old one ("Stefan works at Premex." → "Stefan works at Acme."). Unchanged
 * when the old object is not in the text (the caller may give fact_text).
 */
export function textWithValue(factText: string, oldObject: string | null, value: string): string {
  if (!oldObject) return factText;
  const at = factText.toLowerCase().lastIndexOf(oldObject.toLowerCase());
  return at < 0 ? factText : `${factText.slice(0, at)}${value}${factText.slice(at + oldObject.length)}`;
}

function correctedText(row: Pick<CorrectableRow, 'fact_text' | 'value' | 'object_name'>, c: FactCorrection): string | undefined {
  if (c.fact_text !== undefined) return c.fact_text;
  if (c.value === undefined || c.value === null) return undefined;
  const text = textWithValue(row.fact_text, row.value ?? row.object_name, c.value);
  return text === row.fact_text ? undefined : text;
}

async function loadFact(deps: Pick<Deps, 'pool' | 'now'>, id: string): Promise<FactView> {
  const { rows } = await deps.pool.query<Parameters<typeof factView>[0]>(`${factSelect(false)} WHERE f.id = $1`, [id]);
  return factView(rows[0], deps.now());
}

/**
 * Audited in-place correction: the old values go to `previous_values`, the
 * new ones replace them, and the audit row holds both. Null: no such live fact
 * for this requester.
 */
export async function correctFact(
  deps: Pick<Deps, 'pool' | 'now' | 'embedder'>,
  factId: string,
  correction: FactCorrection,
  who: Requester,
): Promise<FactView | null> {
  // Embedding may be a network call: before the transaction opens. The text keeps vector search in step.
  // A new value alone rewrites the text too, so it is read first (and checked again under the lock).
  const peek = correction.fact_text === undefined && typeof correction.value === 'string' ? (await deps.pool.query<CorrectableRow>(CORRECTABLE, [factId])).rows[0] : undefined;
  const plannedText = peek ? correctedText(peek, correction) : correction.fact_text;
  const embedding = plannedText === undefined ? null : (await deps.embedder.embed([plannedText]))[0];
  const done = await withTransaction(deps.pool, async (tx) => {
    const { rows } = await tx.query<CorrectableRow>(`${CORRECTABLE} FOR UPDATE OF f`, [factId]);
    const row = rows[0];
    if (!row || (who.namespace !== null && who.namespace !== row.namespace)) return false;
    const before = snapshot(row);
    const text = correctedText(row, correction);
    const after = applied(before, { ...correction, fact_text: text });
    // A new value replaces the object entity: the live entity of that name and type when there is one, else a literal.
    let objectId = row.object_id;
    if (typeof correction.value === 'string' && row.object_id) {
      const { rows: named } = await tx.query<{ id: string }>(
        `SELECT id FROM entity WHERE namespace = $1 AND scope_user = $2 AND type = $3 AND name_key = $4
            AND merged_into IS NULL AND forgotten_at IS NULL LIMIT 1`,
        [row.namespace, row.scope_user, row.object_type, nameKey(correction.value)],
      );
      objectId = named[0]?.id ?? null;
      if (objectId) after.value = null;
    }
    if (after.value === null && objectId === null) {
      throw new InvalidCorrection('value', 'value may be null only for a fact whose object is an entity');
    }
    if (after.valid_from && after.invalid_at && after.invalid_at <= after.valid_from) {
      throw new InvalidCorrection('invalid_at', 'invalid_at must be later than valid_from');
    }
    const reason = correction.reason ?? null;
    const objectChanged = objectId !== row.object_id;
    const previous = { ...before, ...(objectChanged ? { object_id: row.object_id } : {}), replaced_at: new Date().toISOString(), reason, actor: who.actor };
    // The vector was computed for the text read before the lock; a concurrent change to it keeps the old vector.
    const vector = embedding && after.fact_text === plannedText ? toVectorSql(embedding) : null;
    await tx.query(
      `UPDATE fact SET fact_text = $2, value = $3, confidence = $4, importance = $5, valid_from = $6, invalid_at = $7,
              previous_values = previous_values || $8::jsonb,
              embedding = coalesce($9::vector, embedding), embedding_model = CASE WHEN $9::vector IS NULL THEN embedding_model ELSE $10 END,
              object_id = $11, updated_at = now()
        WHERE id = $1`,
      [
        factId, after.fact_text, after.value, after.confidence, after.importance, after.valid_from, after.invalid_at,
        JSON.stringify([previous]), vector, deps.embedder.model, objectId,
      ],
    );
    await writeAudit(tx, { namespace: row.namespace, actor: who.actor, requestId: who.requestId }, [
      {
        action: 'fact.corrected',
        targetType: 'fact',
        targetId: factId,
        before: objectChanged ? { ...before, object_id: row.object_id } : before,
        after: { ...after, ...(objectChanged ? { object_id: objectId } : {}), reason },
      },
    ]);
    return true;
  });
  return done ? loadFact(deps, factId) : null;
}

export interface FactForgetResult {
  id: string;
  forgotten_at: string;
}

/**
 * Soft-deletes one fact, audited; idempotent. A fact an episode forget already
 * took down loses that episode's marker, so restoring the episode keeps it gone.
 */
export async function forgetFact(deps: Pick<Deps, 'pool'>, factId: string, who: Requester): Promise<FactForgetResult | null> {
  return withTransaction(deps.pool, async (tx) => {
    const { rows } = await tx.query<{ namespace: string; forgotten_at: Date | null; marker: string | null }>(
      `SELECT namespace, forgotten_at, properties->>'${FORGOTTEN_BY}' AS marker FROM fact WHERE id = $1 FOR UPDATE`,
      [factId],
    );
    const row = rows[0];
    if (!row || (who.namespace !== null && who.namespace !== row.namespace)) return null;
    return forgetGraphRow(tx, 'fact', factId, row, who);
  });
}

export interface FactRestoreResult {
  id: string;
  restored: boolean;
}

/**
 * Brings a forgotten fact back, audited; a live fact is left as it is
 * (`restored: false`). A fact whose subject or object entity is forgotten
 * stays hidden with it until that entity is restored. Null: no such fact.
 */
export async function restoreFact(deps: Pick<Deps, 'pool'>, factId: string, who: Requester): Promise<FactRestoreResult | null> {
  return withTransaction(deps.pool, async (tx) => {
    const { rows } = await tx.query<{ namespace: string; forgotten_at: Date | null }>('SELECT namespace, forgotten_at FROM fact WHERE id = $1 FOR UPDATE', [factId]);
    const row = rows[0];
    if (!row || (who.namespace !== null && who.namespace !== row.namespace)) return null;
    if (!row.forgotten_at) return { id: factId, restored: false };
    await tx.query(`UPDATE fact SET forgotten_at = NULL, properties = properties - '${FORGOTTEN_BY}', updated_at = now() WHERE id = $1`, [factId]);
    await writeAudit(tx, { namespace: row.namespace, actor: who.actor, requestId: who.requestId }, [
      { action: 'fact.restored', targetType: 'fact', targetId: factId, before: { forgotten_at: row.forgotten_at.toISOString() }, after: { forgotten_at: null } },
    ]);
    return { id: factId, restored: true };
  });
}
