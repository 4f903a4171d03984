import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { Deps } from '../../core/deps.js';
import { HttpError } from '../errors.js';
import { defaultWebNamespace } from './principal.js';
import {
  CSRF_HEADER,
  csrfTokenFor,
  csrfTokenMatches,
  decodeSession,
  deriveSessionKeys,
  encodeSession,
  newSession,
  readCookie,
  secretMatches,
  SESSION_COOKIE,
  type Session,
} from './session.js';

/** Where `npm run build:web` writes the page (git-ignored). */
export const WEB_DIST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');

const loginBodySchema = z.strictObject({ secret: z.string().min(1, 'must not be empty').max(1000) });

/** The page may load only its own bundle and talk only to this origin. */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * The knowledge-graph browser: the built page, and its login. Mounted only
 * when WEB_APP_BOOTSTRAP_SECRET is set (otherwise `/kg` is a 404 like any
 * unknown path). The page reads and corrects through `/v1`, authenticated by
 * the session cookie set here (see api/kg/principal.ts).
 */
export function kgRoutes(deps: Pick<Deps, 'config' | 'now'>): Router {
  const secret = deps.config.WEB_APP_BOOTSTRAP_SECRET;
  if (!secret) throw new Error('kgRoutes needs WEB_APP_BOOTSTRAP_SECRET');
  const keys = deriveSessionKeys(secret);
  const router = Router();

  router.use((_req, res, next) => {
    res.set(SECURITY_HEADERS);
    next();
  });

  function sessionOf(req: Request): Session | null {
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    return token === null ? null : decodeSession(keys, token, deps.now());
  }

  /** What the page needs to run: its CSRF token, namespaces, and where workflows are shown. */
  function sessionInfo(session: Session) {
    return {
      csrf_token: csrfTokenFor(keys, session),
      expires_at: new Date(session.exp).toISOString(),
      /** null: any namespace (the page asks which). */
      namespaces: deps.config.WEB_APP_NAMESPACES ?? null,
      default_namespace: defaultWebNamespace(deps.config),
      temporal_ui_url: deps.config.TEMPORAL_UI_URL,
      temporal_namespace: deps.config.TEMPORAL_NAMESPACE,
    };
  }

  function setSessionCookie(req: Request, res: Response, value: string, maxAgeMs: number) {
    res.cookie(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/', maxAge: maxAgeMs });
  }

  router.post('/login', express.json({ limit: '4kb', strict: true }), (req, res) => {
    if (!req.is('application/json')) throw new HttpError('unsupported_media_type', 'Request bodies must be application/json');
    const body = loginBodySchema.parse(req.body);
    if (!secretMatches(keys, body.secret)) {
      req.log.warn('kg login with a wrong secret');
      throw new HttpError('unauthorized', 'Wrong secret');
    }
    const session = newSession(deps.now(), deps.config.WEB_APP_SESSION_TTL);
    setSessionCookie(req, res, encodeSession(keys, session), deps.config.WEB_APP_SESSION_TTL);
    req.log.info({ session: session.sid.slice(0, 12) }, 'kg session opened');
    res.json(sessionInfo(session));
  });

  router.get('/session', (req, res) => {
    const session = sessionOf(req);
    if (!session) throw new HttpError('unauthorized', 'No /kg session: log in with the bootstrap secret');
    res.json(sessionInfo(session));
  });

  router.post('/logout', (req, res) => {
    const session = sessionOf(req);
    const presented = req.headers[CSRF_HEADER];
    if (session && (typeof presented !== 'string' || !csrfTokenMatches(keys, session, presented))) {
      throw new HttpError('forbidden', `Logging out needs the ${CSRF_HEADER} header of the session`);
    }
    res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/' });
    res.status(204).end();
  });

  const bundleMissing: RequestHandler = (_req, _res, next) => {
    if (existsSync(path.join(WEB_DIST_DIR, 'index.html'))) return next();
    next(new HttpError('unavailable', 'The /kg page is not built: run `npm run build:web`'));
  };
  // `/kg` itself, without a redirect to `/kg/` (the page keeps its state in the query string).
  router.get('/', bundleMissing, (_req, res) => res.sendFile(path.join(WEB_DIST_DIR, 'index.html')));
  router.use(express.static(WEB_DIST_DIR, { index: false, redirect: false, fallthrough: true }));
  return router;
}
