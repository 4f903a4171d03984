import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/pool.js';
import type { Role } from '../domain/types.js';

export interface Principal {
  keyId: string;
  role: Role;
  /** null: every namespace (admin keys). */
  namespace: string | null;
}

// Keys are 256-bit random strings, so a plain SHA-256 is a sufficient, fast verifier.
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(): string {
  return `mnemo_${randomBytes(24).toString('base64url')}`;
}

/** Constant-time comparison of a presented key with a stored hash (hashing first makes the lengths equal). */
export function matchesKeyHash(key: string, keyHash: string): boolean {
  return timingSafeEqual(Buffer.from(hashApiKey(key), 'hex'), Buffer.from(keyHash, 'hex'));
}

export async function findApiKey(db: Queryable, key: string): Promise<Principal | null> {
  const { rows } = await db.query<{ id: string; role: Role; namespace: string | null }>(
    'SELECT id, role, namespace FROM api_key WHERE key_hash = $1 AND revoked_at IS NULL',
    [hashApiKey(key)],
  );
  const row = rows[0];
  return row ? { keyId: row.id, role: row.role, namespace: row.namespace } : null;
}

export async function createApiKey(
  db: Queryable,
  input: { role: Role; namespace: string | null; label?: string },
): Promise<{ id: string; key: string }> {
  const key = generateApiKey();
  if (input.namespace) {
    await db.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [input.namespace]);
  }
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO api_key (key_hash, namespace, role, label) VALUES ($1, $2, $3, $4) RETURNING id',
    [hashApiKey(key), input.namespace, input.role, input.label ?? null],
  );
  return { id: rows[0].id, key };
}

const ROLE_RANK: Record<Role, number> = { agent: 0, operator: 1, admin: 2 };

export function hasRole(principal: Principal, required: Role): boolean {
  return ROLE_RANK[principal.role] >= ROLE_RANK[required];
}

export function canAccessNamespace(principal: Principal, namespace: string): boolean {
  return principal.namespace === null || principal.namespace === namespace;
}
