import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../api/app.js';
import { deriveSessionKeys, encodeSession } from '../api/kg/session.js';
import { ensureWebBuilt } from '../web/build.js';
import { startTestStack, type TestStack } from './support/stack.js';

const SECRET = 'kg-http-test-secret-0123456789';

interface ErrorBody {
  error: { code: string; message: string };
}

interface SessionBody {
  csrf_token: string;
  namespaces: string[] | null;
  default_namespace: string;
  temporal_ui_url: string;
}

/** The `/kg` login and the `/v1` access its session cookie gives, over plain HTTP. */
describe('/kg over HTTP', () => {
  let stack: TestStack;
  beforeAll(async () => {
    await ensureWebBuilt();
    stack = await startTestStack({ withWorker: false, env: { WEB_APP_BOOTSTRAP_SECRET: SECRET, WEB_APP_NAMESPACES: 'kg-a,kg-b' } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('json') && text ? (JSON.parse(text) as unknown) : null;
    return { status: res.status, headers: res.headers, text, json };
  }

  async function login(): Promise<{ cookie: string; session: SessionBody }> {
    const res = await call('POST', '/kg/login', {}, { secret: SECRET });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get('set-cookie') ?? '';
    return { cookie: setCookie.split(';')[0], session: res.json as SessionBody };
  }

  it('is a 404 when WEB_APP_BOOTSTRAP_SECRET is unset', async () => {
    const config = { ...stack.deps.config, WEB_APP_BOOTSTRAP_SECRET: undefined };
    const server: Server = await new Promise((resolve) => {
      const s = createApp({ ...stack.deps, config }).listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const [method, path] of [['GET', '/kg'], ['GET', '/kg/app.js'], ['GET', '/kg/session'], ['POST', '/kg/login']]) {
        const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? JSON.stringify({ secret: SECRET }) : undefined });
        expect(res.status).toBe(404);
        expect(((await res.json()) as ErrorBody).error.code).toBe('not_found');
      }
      // And a session cookie minted with the secret opens nothing: /v1 wants a bearer key again.
      const cookie = `mnemo_kg=${encodeSession(deriveSessionKeys(SECRET), { sid: 'a'.repeat(24), exp: Date.now() + 60_000 })}`;
      expect((await fetch(`${base}/v1/entities`, { headers: { cookie } })).status).toBe(401);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('serves the built page with a strict content security policy', async () => {
    const page = await call('GET', '/kg');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="app">');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const bundle = await call('GET', '/kg/app.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('javascript');
    expect(bundle.text.length).toBeGreaterThan(100_000); // cytoscape is bundled: nothing comes from a CDN
    expect(bundle.text).not.toMatch(/https:\/\/(cdn|unpkg)/);
  });

  it('refuses a wrong secret with 401 and sets no cookie', async () => {
    const res = await call('POST', '/kg/login', {}, { secret: 'not-the-secret-at-all' });
    expect(res.status).toBe(401);
    expect((res.json as ErrorBody).error.code).toBe('unauthorized');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect((await call('GET', '/kg/session')).status).toBe(401);
    const bad = await call('POST', '/kg/login', {}, { password: SECRET });
    expect(bad.status).toBe(400);
  });

  it('keeps the session in an httpOnly, SameSite=Strict cookie that expires', async () => {
    const res = await call('POST', '/kg/login', {}, { secret: SECRET });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^mnemo_kg=[^;]+;/);
    expect(setCookie).toMatch(/;\s*HttpOnly/i);
    expect(setCookie).toMatch(/;\s*SameSite=Strict/i);
    expect(setCookie).toMatch(/;\s*Path=\//i);
    expect(setCookie).toMatch(/;\s*Max-Age=43200/i);
    const body = res.json as SessionBody;
    expect(body.csrf_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(body.namespaces).toEqual(['kg-a', 'kg-b']);
    expect(body.default_namespace).toBe('kg-a');
    expect(body.temporal_ui_url).toBe('http://127.0.0.1:8233');
    // The page learns its CSRF token again after a reload.
    const cookie = setCookie.split(';')[0];
    const again = await call('GET', '/kg/session', { cookie });
    expect((again.json as SessionBody).csrf_token).toBe(body.csrf_token);
  });

  it('authenticates /v1 reads with the cookie as an operator of the configured namespaces only', async () => {
    const { cookie } = await login();
    expect((await call('GET', '/v1/entities', { cookie })).status).toBe(200);
    expect((await call('GET', '/v1/reviews?status=open', { cookie, 'x-mnemo-namespace': 'kg-b' })).status).toBe(200);
    const other = await call('GET', '/v1/entities', { cookie, 'x-mnemo-namespace': 'elsewhere' });
    expect(other.status).toBe(403);
    const asked = await call('GET', '/v1/entities?namespace=kg-b', { cookie });
    expect(asked.status).toBe(403); // bound to kg-a by default: another namespace only through the header
    // A forged or expired cookie is refused.
    expect((await call('GET', '/v1/entities', { cookie: `${cookie}x` })).status).toBe(401);
    const expired = `mnemo_kg=${encodeSession(deriveSessionKeys(SECRET), { sid: 'b'.repeat(24), exp: Date.now() - 1000 })}`;
    expect((await call('GET', '/v1/entities', { cookie: expired })).status).toBe(401);
    const otherSecret = `mnemo_kg=${encodeSession(deriveSessionKeys('another-secret-0123456789'), { sid: 'c'.repeat(24), exp: Date.now() + 60_000 })}`;
    expect((await call('GET', '/v1/entities', { cookie: otherSecret })).status).toBe(401);
  });

  it('refuses a cookie mutation without the CSRF header, and audits the one with it', async () => {
    const { cookie, session } = await login();
    const memory = { content: 'Quorra Vance works at Lattice Mills.', user_id: 'quorra', skip_extraction: true };
    const bare = await call('POST', '/v1/memories', { cookie }, memory);
    expect(bare.status).toBe(403);
    expect((bare.json as ErrorBody).error.message).toContain('x-csrf-token');
    const wrong = await call('POST', '/v1/memories', { cookie, 'x-csrf-token': `${session.csrf_token.slice(0, -2)}xx` }, memory);
    expect(wrong.status).toBe(403);
    const { rows: none } = await stack.deps.pool.query('SELECT 1 FROM episode WHERE user_id = $1', ['quorra']);
    expect(none).toHaveLength(0);

    const ok = await call('POST', '/v1/memories', { cookie, 'x-csrf-token': session.csrf_token }, memory);
    expect(ok.status).toBe(202);
    const { rows } = await stack.deps.pool.query<{ namespace: string }>('SELECT namespace FROM episode WHERE user_id = $1', ['quorra']);
    expect(rows).toEqual([{ namespace: 'kg-a' }]);

    const settings = await call('PATCH', '/v1/namespaces/kg-a', { cookie, 'x-csrf-token': session.csrf_token }, { timezone: 'Europe/Oslo' });
    expect(settings.status).toBe(200);
    const { rows: audit } = await stack.deps.pool.query<{ actor: string }>(`SELECT actor FROM audit_log WHERE action = 'namespace.updated' AND namespace = 'kg-a'`);
    expect(audit[0].actor).toMatch(/^key:web:/);
    // A bearer key keeps working beside the cookie.
    expect((await stack.request('GET', '/v1/entities?namespace=kg-b')).status).toBe(200);
  });

  it('logs out only with the CSRF header, clearing the cookie', async () => {
    const { cookie, session } = await login();
    expect((await call('POST', '/kg/logout', { cookie })).status).toBe(403);
    const out = await call('POST', '/kg/logout', { cookie, 'x-csrf-token': session.csrf_token });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^mnemo_kg=;.*Expires=Thu, 01 Jan 1970/);
  });
});
