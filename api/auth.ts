import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { canAccessNamespace, findApiKey, hashApiKey, hasRole, matchesKeyHash, type Principal } from '../core/auth/apiKeys.js';
import type { Deps } from '../core/deps.js';
import type { Role } from '../core/domain/types.js';
import { HttpError } from './errors.js';
import { webSessionAuthenticator } from './kg/principal.js';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}

/**
 * Bearer-key authentication: MNEMO_API_KEY is an admin key; others are looked up by hash.
 * Without a bearer key, the `/kg` page's session cookie (when the web app is enabled).
 */
export function authenticate(deps: Pick<Deps, 'config' | 'pool' | 'now'>): RequestHandler {
  // Hashed once: every request compares against it.
  const adminKeyHash = deps.config.MNEMO_API_KEY ? hashApiKey(deps.config.MNEMO_API_KEY) : null;
  const webSession = webSessionAuthenticator(deps.config, deps.now);
  return async (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    if (!header && webSession) {
      const principal = webSession(req);
      if (principal) {
        req.principal = principal;
        return next();
      }
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return next(new HttpError('unauthorized', 'Missing bearer key: send Authorization: Bearer <key>'));
    const key = match[1];
    if (adminKeyHash && matchesKeyHash(key, adminKeyHash)) {
      req.principal = { keyId: 'env:MNEMO_API_KEY', role: 'admin', namespace: null };
      return next();
    }
    const principal = await findApiKey(deps.pool, key);
    if (!principal) return next(new HttpError('unauthorized', 'Unknown or revoked API key'));
    req.principal = principal;
    next();
  };
}

export function principalOf(req: Request): Principal {
  if (!req.principal) throw new HttpError('unauthorized', 'Not authenticated');
  return req.principal;
}

/** The namespace a request acts on: the one asked for, else the key's own, else `default`; 403 when the key may not. */
export function namespaceFor(req: Request, requested: string | undefined): string {
  const principal = principalOf(req);
  const namespace = requested ?? principal.namespace ?? 'default';
  if (!canAccessNamespace(principal, namespace)) {
    throw new HttpError('forbidden', `This key may not access namespace "${namespace}"`);
  }
  return namespace;
}

export function requireRole(req: Request, role: Role): void {
  if (!hasRole(principalOf(req), role)) throw new HttpError('forbidden', `Requires the ${role} role`);
}
