import { Router } from 'express';
import { z } from 'zod';
import { canAccessNamespace } from '../../core/auth/apiKeys.js';
import { createKey, keyNamespace, listKeys, revokeKey } from '../../core/auth/keyManagement.js';
import type { Deps } from '../../core/deps.js';
import { ROLES } from '../../core/domain/types.js';
import { namespaceFor, principalOf, requireRole } from '../auth.js';
import { notFound } from '../errors.js';
import { namespaceSchema, uuidSchema } from '../schemas/common.js';

/** A new key: always of one namespace (the key valid everywhere is MNEMO_API_KEY, never stored). */
export const newKeySchema = z.strictObject({
  namespace: namespaceSchema,
  role: z.enum(ROLES, { error: `must be one of: ${ROLES.join(', ')}` }),
  label: z.string().trim().min(1).max(200).optional(),
});

export const listQuerySchema = z.strictObject({ namespace: namespaceSchema.optional() });

/** Key management (admin): create (the secret shown once), list without secrets, revoke. Every change is audited. */
export function keyRoutes(deps: Deps): Router {
  const router = Router();

  router.post('/keys', async (req, res) => {
    requireRole(req, 'admin');
    const body = newKeySchema.parse(req.body);
    const namespace = namespaceFor(req, body.namespace);
    const created = await createKey(
      deps.pool,
      { namespace, role: body.role, label: body.label ?? null },
      { actor: `key:${principalOf(req).keyId}`, requestId: req.id },
      deps.now(),
    );
    res.status(201).json(created);
  });

  router.get('/keys', async (req, res) => {
    requireRole(req, 'admin');
    const query = listQuerySchema.parse(req.query);
    // A namespaced admin sees its own namespace's keys; the global admin every key unless it asks for one namespace.
    const namespace = query.namespace !== undefined ? namespaceFor(req, query.namespace) : (principalOf(req).namespace ?? undefined);
    res.json({ keys: await listKeys(deps.pool, { namespace }) });
  });

  router.delete('/keys/:id', async (req, res) => {
    requireRole(req, 'admin');
    const id = uuidSchema.parse(req.params.id);
    const namespace = await keyNamespace(deps.pool, id);
    // Another namespace's key is answered as missing: its existence is not this caller's to know.
    if (!namespace || !canAccessNamespace(principalOf(req), namespace)) throw notFound('API key');
    const revoked = await revokeKey(deps.pool, id, { actor: `key:${principalOf(req).keyId}`, requestId: req.id }, deps.now());
    if (!revoked) throw notFound('API key');
    res.json(revoked);
  });

  return router;
}
