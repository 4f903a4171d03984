import { writeAudit } from '../audit/auditLog.js';
import { withTransaction, type Pool, type Queryable } from '../db/pool.js';
import type { Role } from '../domain/types.js';
import { generateApiKey, hashApiKey } from './apiKeys.js';

/** A stored key as listed: never its secret nor its hash. */
export interface KeyView {
  id: string;
  namespace: string;
  role: Role;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** The answer to a creation: the secret is in it this once and nowhere else (only its hash is stored). */
export interface CreatedKey extends KeyView {
  key: string;
}

export interface NewKey {
  namespace: string;
  role: Role;
  label: string | null;
}

/** Who asked (audit actor, e.g. `key:<id>` or `cli:keys`) and the request behind it. */
export interface KeyCause {
  actor: string;
  requestId?: string | null;
}

interface KeyRow {
  id: string;
  namespace: string;
  role: Role;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id, namespace, role, label, created_at, revoked_at';

function view(row: KeyRow): KeyView {
  return {
    id: row.id,
    namespace: row.namespace,
    role: row.role,
    label: row.label,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

/** Stores a new key of one namespace (created if new) and audits it; the secret is returned once. */
export async function createKey(pool: Pool, input: NewKey, cause: KeyCause, now: Date): Promise<CreatedKey> {
  const key = generateApiKey();
  const row = await withTransaction(pool, async (tx) => {
    await tx.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [input.namespace]);
    const { rows } = await tx.query<KeyRow>(
      `INSERT INTO api_key (key_hash, namespace, role, label, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [hashApiKey(key), input.namespace, input.role, input.label, now],
    );
    await writeAudit(tx, { namespace: input.namespace, actor: cause.actor, requestId: cause.requestId }, [
      { action: 'api_key.created', targetType: 'api_key', targetId: rows[0].id, after: { role: input.role, label: input.label } },
    ]);
    return rows[0];
  });
  return { ...view(row), key };
}

/** Every stored key (of one namespace when given), newest first, without secrets. Keys valid everywhere (MNEMO_API_KEY) are not stored. */
export async function listKeys(db: Queryable, filter: { namespace?: string } = {}): Promise<KeyView[]> {
  const { rows } = await db.query<KeyRow>(
    `SELECT ${COLUMNS} FROM api_key WHERE namespace IS NOT NULL AND ($1::text IS NULL OR namespace = $1) ORDER BY created_at DESC, id`,
    [filter.namespace ?? null],
  );
  return rows.map(view);
}

/**
 * Revokes a key at once: authentication reads `api_key` on every request
 * (core/auth/apiKeys.ts findApiKey, no cache), so its next request is 401.
 * Revoking a revoked key changes nothing; null when no such key exists.
 */
export async function revokeKey(pool: Pool, id: string, cause: KeyCause, now: Date): Promise<KeyView | null> {
  const row = await withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<KeyRow>(`SELECT ${COLUMNS} FROM api_key WHERE id = $1 AND namespace IS NOT NULL FOR UPDATE`, [id]);
    const current = rows[0];
    if (!current || current.revoked_at) return current ?? null;
    const updated = await tx.query<KeyRow>(`UPDATE api_key SET revoked_at = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, now]);
    await writeAudit(tx, { namespace: current.namespace, actor: cause.actor, requestId: cause.requestId }, [
      { action: 'api_key.revoked', targetType: 'api_key', targetId: id, before: { revoked_at: null }, after: { revoked_at: now.toISOString() } },
    ]);
    return updated.rows[0];
  });
  return row ? view(row) : null;
}

/** The namespace of a stored key (to check the caller may manage it), or null. */
export async function keyNamespace(db: Queryable, id: string): Promise<string | null> {
  const { rows } = await db.query<{ namespace: string | null }>('SELECT namespace FROM api_key WHERE id = $1', [id]);
  return rows[0]?.namespace ?? null;
}
