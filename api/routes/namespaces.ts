import { Router } from 'express';
import { z } from 'zod';
import { writeAudit } from '../../core/audit/auditLog.js';
import { withTransaction } from '../../core/db/pool.js';
import type { Deps } from '../../core/deps.js';
import { isIanaTimeZone } from '../../core/domain/timezone.js';
import { namespaceFor, principalOf, requireRole } from '../auth.js';
import { notFound } from '../errors.js';
import { namespaceSchema } from '../schemas/common.js';

/** An IANA time zone name this server knows ("Europe/Oslo", "America/New_York", "UTC"). */
export const ianaTimeZoneSchema = z.string().trim().refine(isIanaTimeZone, 'must be an IANA time zone name, e.g. Europe/Oslo');

export const settingsBodySchema = z.strictObject({
  /** Default time zone of writes that give none (no `timezone`, `occurred_at` without an offset); null: UTC. */
  timezone: ianaTimeZoneSchema.nullable(),
});

interface NamespaceRow {
  id: string;
  timezone: string | null;
  created_at: Date;
}

const view = (row: NamespaceRow) => ({ namespace: row.id, timezone: row.timezone, created_at: row.created_at.toISOString() });

/** Namespace settings: for now the default time zone in which relative dates of its memories resolve. */
export function namespaceRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/namespaces/:namespace', async (req, res) => {
    const namespace = namespaceFor(req, namespaceSchema.parse(req.params.namespace));
    const { rows } = await deps.pool.query<NamespaceRow>('SELECT id, timezone, created_at FROM namespace WHERE id = $1', [namespace]);
    if (!rows[0]) throw notFound('Namespace');
    res.json(view(rows[0]));
  });

  router.patch('/namespaces/:namespace', async (req, res) => {
    requireRole(req, 'operator');
    const namespace = namespaceFor(req, namespaceSchema.parse(req.params.namespace));
    const body = settingsBodySchema.parse(req.body);
    const principal = principalOf(req);
    const row = await withTransaction(deps.pool, async (tx) => {
      await tx.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [namespace]);
      const before = await tx.query<{ timezone: string | null }>('SELECT timezone FROM namespace WHERE id = $1 FOR UPDATE', [namespace]);
      const { rows } = await tx.query<NamespaceRow>('UPDATE namespace SET timezone = $2 WHERE id = $1 RETURNING id, timezone, created_at', [namespace, body.timezone]);
      await writeAudit(tx, { namespace, actor: `key:${principal.keyId}`, requestId: String(req.id) }, [
        { action: 'namespace.updated', targetType: 'namespace', targetId: namespace, before: { timezone: before.rows[0]?.timezone ?? null }, after: { timezone: body.timezone } },
      ]);
      return rows[0];
    });
    res.json(view(row));
  });

  return router;
}
