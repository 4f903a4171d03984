import type { Request } from 'express';
import type { Principal } from '../../core/auth/apiKeys.js';
import type { Config } from '../../core/config/config.js';
import { HttpError } from '../errors.js';
import { namespaceSchema } from '../schemas/common.js';
import { CSRF_HEADER, csrfTokenMatches, decodeSession, deriveSessionKeys, NAMESPACE_HEADER, readCookie, SESSION_COOKIE } from './session.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The namespace a page request acts on when it names none: the first configured one, else `default`. */
export function defaultWebNamespace(config: Pick<Config, 'WEB_APP_NAMESPACES'>): string {
  return config.WEB_APP_NAMESPACES?.[0] ?? 'default';
}

/**
 * Authenticates `/v1` requests made by the `/kg` page: its signed session
 * cookie, plus the CSRF header on every mutation. The page acts as an operator
 * (never an admin) bound to one namespace per request, chosen by a header among
 * WEB_APP_NAMESPACES. Null when the web app is disabled.
 */
export function webSessionAuthenticator(
  config: Pick<Config, 'WEB_APP_BOOTSTRAP_SECRET' | 'WEB_APP_NAMESPACES'>,
  now: () => Date,
): ((req: Request) => Principal | null) | null {
  if (!config.WEB_APP_BOOTSTRAP_SECRET) return null;
  const keys = deriveSessionKeys(config.WEB_APP_BOOTSTRAP_SECRET);
  return (req) => {
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (token === null) return null;
    const session = decodeSession(keys, token, now());
    if (!session) throw new HttpError('unauthorized', 'The /kg session is invalid or expired: log in again at /kg');
    if (!SAFE_METHODS.has(req.method)) {
      const presented = req.headers[CSRF_HEADER];
      if (typeof presented !== 'string' || !csrfTokenMatches(keys, session, presented)) {
        throw new HttpError('forbidden', `A cookie-authenticated change needs the ${CSRF_HEADER} header of its session`);
      }
    }
    const asked = req.headers[NAMESPACE_HEADER];
    const namespace = typeof asked === 'string' ? namespaceSchema.safeParse(asked) : { success: true as const, data: defaultWebNamespace(config) };
    if (!namespace.success || (config.WEB_APP_NAMESPACES && !config.WEB_APP_NAMESPACES.includes(namespace.data))) {
      throw new HttpError('forbidden', `This /kg session may not access namespace "${String(asked)}"`);
    }
    return { keyId: `web:${session.sid.slice(0, 12)}`, role: 'operator', namespace: namespace.data };
  };
}
