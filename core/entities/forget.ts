import { writeAudit } from '../audit/auditLog.js';
import { withTransaction, type PoolClient } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { forgetGraphRow } from '../graph/forgetRow.js';
import { FORGOTTEN_BY, type Requester } from '../memories/forget.js';

export interface EntityForgetResult {
  id: string;
  forgotten_at: string;
}

export interface EntityRestoreResult {
  id: string;
  restored: boolean;
}

/** Restoring would make two live entities of one name, type and scope (a namesake was learnt meanwhile). */
export class EntityRestoreConflict extends Error {
  constructor(readonly namesakeId: string) {
    super(`a live entity of the same name and type exists (${namesakeId}); merge or forget it first`);
    this.name = 'EntityRestoreConflict';
  }
}

interface EntityRow {
  namespace: string;
  scope_user: string;
  type: string;
  name_key: string;
  merged_into: string | null;
  forgotten_at: Date | null;
  marker: string | null;
}

async function lockEntity(tx: PoolClient, id: string, who: Requester): Promise<EntityRow | null> {
  const { rows } = await tx.query<EntityRow>(
    `SELECT namespace, scope_user, type, name_key, merged_into, forgotten_at, properties->>'${FORGOTTEN_BY}' AS marker FROM entity WHERE id = $1 FOR UPDATE`,
    [id],
  );
  const row = rows[0];
  return row && (who.namespace === null || who.namespace === row.namespace) ? row : null;
}

/**
 * Soft-deletes one entity, audited; idempotent. Its facts stay stored but
 * every read hides them with it (reads skip facts whose subject or object is
 * forgotten). An entity an episode forget took down loses that episode's
 * marker, so restoring the episode keeps it gone. Null: no such entity.
 */
export async function forgetEntity(deps: Pick<Deps, 'pool'>, entityId: string, who: Requester): Promise<EntityForgetResult | null> {
  return withTransaction(deps.pool, async (tx) => {
    const row = await lockEntity(tx, entityId, who);
    if (!row) return null;
    return forgetGraphRow(tx, 'entity', entityId, row, who);
  });
}

/**
 * Brings a forgotten entity (and so its facts) back, audited; a live entity
 * is left as it is (`restored: false`). Throws EntityRestoreConflict when a
 * live namesake took its place meanwhile. Null: no such entity.
 */
export async function restoreEntity(deps: Pick<Deps, 'pool'>, entityId: string, who: Requester): Promise<EntityRestoreResult | null> {
  return withTransaction(deps.pool, async (tx) => {
    const row = await lockEntity(tx, entityId, who);
    if (!row) return null;
    if (!row.forgotten_at) return { id: entityId, restored: false };
    if (row.merged_into === null) {
      const { rows: namesake } = await tx.query<{ id: string }>(
        `SELECT id FROM entity WHERE namespace = $1 AND scope_user = $2 AND type = $3 AND name_key = $4 AND id <> $5
            AND merged_into IS NULL AND forgotten_at IS NULL LIMIT 1`,
        [row.namespace, row.scope_user, row.type, row.name_key, entityId],
      );
      if (namesake[0]) throw new EntityRestoreConflict(namesake[0].id);
    }
    await tx.query(`UPDATE entity SET forgotten_at = NULL, properties = properties - '${FORGOTTEN_BY}', updated_at = now() WHERE id = $1`, [entityId]);
    await writeAudit(tx, { namespace: row.namespace, actor: who.actor, requestId: who.requestId }, [
      { action: 'entity.restored', targetType: 'entity', targetId: entityId, before: { forgotten_at: row.forgotten_at.toISOString() }, after: { forgotten_at: null } },
    ]);
    return { id: entityId, restored: true };
  });
}
