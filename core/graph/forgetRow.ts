import { writeAudit } from '../audit/auditLog.js';
import type { PoolClient } from '../db/pool.js';
import { FORGOTTEN_BY, type Requester } from '../memories/forget.js';

/** A fact or entity row, locked by the caller, as forget sees it. */
export interface ForgettableRow {
  namespace: string;
  forgotten_at: Date | null;
  /** The episode whose forget took this row down, if that is why it is forgotten. */
  marker: string | null;
}

/**
 * Soft-deletes one fact or entity, audited as `<table>.forgotten`; idempotent.
 * A row an episode forget already took down loses that episode's marker, so
 * restoring the episode keeps it gone.
 */
export async function forgetGraphRow(
  tx: PoolClient,
  table: 'fact' | 'entity',
  id: string,
  row: ForgettableRow,
  who: Requester,
): Promise<{ id: string; forgotten_at: string }> {
  if (row.forgotten_at && row.marker === null) return { id, forgotten_at: row.forgotten_at.toISOString() };
  const { rows } = await tx.query<{ forgotten_at: Date }>(
    `UPDATE ${table} SET forgotten_at = coalesce(forgotten_at, now()), properties = properties - '${FORGOTTEN_BY}', updated_at = now()
      WHERE id = $1 RETURNING forgotten_at`,
    [id],
  );
  const forgottenAt = rows[0].forgotten_at.toISOString();
  await writeAudit(tx, { namespace: row.namespace, actor: who.actor, requestId: who.requestId }, [
    {
      action: `${table}.forgotten`,
      targetType: table,
      targetId: id,
      before: { forgotten_at: row.forgotten_at?.toISOString() ?? null, [FORGOTTEN_BY]: row.marker },
      after: { forgotten_at: forgottenAt },
    },
  ]);
  return { id, forgotten_at: forgottenAt };
}
