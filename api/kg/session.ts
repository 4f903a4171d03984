import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** The cookie holding a `/kg` session (sent to `/v1` too: the page reads and corrects through the public API). */
export const SESSION_COOKIE = 'mnemo_kg';
/** Header every cookie-authenticated mutation must carry (a cross-site page can neither read nor set it). */
export const CSRF_HEADER = 'x-csrf-token';
/** Header naming the one namespace a page request acts on. */
export const NAMESPACE_HEADER = 'x-mnemo-namespace';

export interface SessionKeys {
  /** Signs session cookies. */
  signing: Buffer;
  /** Derives each session's CSRF token. */
  csrf: Buffer;
  /** SHA-256 of the secret, compared in constant time at login. */
  secretHash: Buffer;
}

/** Keys derived from the bootstrap secret: changing the secret ends every session. */
export function deriveSessionKeys(secret: string): SessionKeys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'mnemo-kg', info, 32));
  return { signing: derive('session-cookie'), csrf: derive('csrf-token'), secretHash: createHash('sha256').update(secret).digest() };
}

export function secretMatches(keys: SessionKeys, presented: string): boolean {
  return timingSafeEqual(createHash('sha256').update(presented).digest(), keys.secretHash);
}

const sessionSchema = z.object({ sid: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/), exp: z.number().int() });
export type Session = z.infer<typeof sessionSchema>;

const sign = (key: Buffer, data: string) => createHmac('sha256', key).update(data).digest('base64url');

function equalStrings(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function newSession(now: Date, ttlMs: number): Session {
  return { sid: randomBytes(18).toString('base64url'), exp: now.getTime() + ttlMs };
}

/** `payload.signature`, both base64url: the server keeps no session rows, the signature is the proof. */
export function encodeSession(keys: SessionKeys, session: Session): string {
  const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
  return `${payload}.${sign(keys.signing, payload)}`;
}

/** The session a cookie value proves, or null when it is forged, malformed or expired. */
export function decodeSession(keys: SessionKeys, token: string, now: Date): Session | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined || !equalStrings(signature, sign(keys.signing, payload))) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const session = sessionSchema.safeParse(parsed);
  if (!session.success || session.data.exp <= now.getTime()) return null;
  return session.data;
}

export function csrfTokenFor(keys: SessionKeys, session: Session): string {
  return sign(keys.csrf, session.sid);
}

export function csrfTokenMatches(keys: SessionKeys, session: Session, presented: string): boolean {
  return equalStrings(presented, csrfTokenFor(keys, session));
}

/** One cookie's value from a `Cookie` header (the only cookie Mnemo reads). */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
