import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createApiKey } from '../core/auth/apiKeys.js';
import { ROOT } from './support/paths.js';
import { startTestStack, type TestStack } from './support/stack.js';

const run = promisify(execFile);

interface KeyBody {
  id: string;
  key?: string;
  namespace: string;
  role: string;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** `npm run keys -- …` as an operator runs it: its own process, against the test database. */
async function keysCli(stack: TestStack, args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/keys.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: stack.db.url, LOG_LEVEL: 'silent' },
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

describe('API keys', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('creates a key shown once, which works at once, is listed without secrets, and is refused right after revocation', async () => {
    const created = await stack.request<KeyBody>('POST', '/v1/keys', { namespace: 'keys-a', role: 'agent', label: 'support bot' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^mnemo_/),
      namespace: 'keys-a',
      role: 'agent',
      label: 'support bot',
      created_at: expect.any(String),
      revoked_at: null,
    });
    const key = created.body.key!;

    const write = await stack.request<{ id: string }>('POST', '/v1/memories', { content: 'Rosa works at Lumen.', skip_extraction: true }, key);
    expect(write.status).toBe(202);
    const { rows } = await stack.deps.pool.query<{ namespace: string }>('SELECT namespace FROM episode WHERE id = $1', [write.body.id]);
    expect(rows[0].namespace).toBe('keys-a');
    expect((await stack.request('GET', '/v1/memories?namespace=other', undefined, key)).status).toBe(403);

    const listed = await stack.request<{ keys: KeyBody[] }>('GET', '/v1/keys?namespace=keys-a');
    expect(listed.status).toBe(200);
    const { key: _secret, ...withoutSecret } = created.body;
    expect(listed.body.keys).toEqual([withoutSecret]);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(key);
    expect(text).not.toMatch(/hash/i);

    const revoked = await stack.request<KeyBody>('DELETE', `/v1/keys/${created.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    const refused = await stack.request<{ error: { code: string } }>('GET', '/v1/memories', undefined, key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
    // Revoking twice changes nothing; the list shows when it was revoked.
    expect((await stack.request<KeyBody>('DELETE', `/v1/keys/${created.body.id}`)).body.revoked_at).toBe(revoked.body.revoked_at);
    expect((await stack.request<{ keys: KeyBody[] }>('GET', '/v1/keys?namespace=keys-a')).body.keys[0].revoked_at).toBe(revoked.body.revoked_at);

    const audit = await stack.deps.pool.query<{ action: string; target_id: string; actor: string }>(
      `SELECT action, target_id, actor FROM audit_log WHERE target_type = 'api_key' AND target_id = $1 ORDER BY id`,
      [created.body.id],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['api_key.created', 'api_key.revoked']);
    expect(audit.rows[0].actor).toBe('key:env:MNEMO_API_KEY');
  });

  it('is for admins only, and a namespaced admin manages only its namespace', async () => {
    const operator = await createApiKey(stack.deps.pool, { role: 'operator', namespace: 'keys-b' });
    const agent = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'keys-b' });
    for (const key of [operator.key, agent.key]) {
      expect((await stack.request('POST', '/v1/keys', { namespace: 'keys-b', role: 'agent' }, key)).status).toBe(403);
      expect((await stack.request('GET', '/v1/keys', undefined, key)).status).toBe(403);
      expect((await stack.request('DELETE', `/v1/keys/${agent.id}`, undefined, key)).status).toBe(403);
    }
    expect((await stack.request('GET', '/v1/keys', undefined, 'mnemo_not-a-key')).status).toBe(401);

    const admin = await createApiKey(stack.deps.pool, { role: 'admin', namespace: 'keys-b' });
    expect((await stack.request('POST', '/v1/keys', { namespace: 'keys-c', role: 'agent' }, admin.key)).status).toBe(403);
    const own = await stack.request<{ keys: KeyBody[] }>('GET', '/v1/keys', undefined, admin.key);
    expect(new Set(own.body.keys.map((k) => k.namespace))).toEqual(new Set(['keys-b']));
    const elsewhere = await stack.request<KeyBody>('POST', '/v1/keys', { namespace: 'keys-c', role: 'agent' });
    expect((await stack.request('DELETE', `/v1/keys/${elsewhere.body.id}`, undefined, admin.key)).status).toBe(404);
    expect((await stack.request('DELETE', `/v1/keys/${agent.id}`, undefined, admin.key)).status).toBe(200);
  });

  it('rejects bad input naming each field', async () => {
    const bad = await stack.request<{ error: { code: string; details: Array<{ field: string }> } }>('POST', '/v1/keys', { namespace: 'bad ns', role: 'root' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d) => d.field).sort()).toEqual(['namespace', 'role']);
    expect((await stack.request('DELETE', '/v1/keys/not-a-uuid')).status).toBe(400);
    expect((await stack.request('DELETE', '/v1/keys/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('npm run keys creates, lists and revokes keys against DATABASE_URL', async () => {
    const created = await keysCli(stack, ['create', '--namespace', 'keys-cli', '--role', 'agent', '--label', 'from a shell']);
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout) as KeyBody;
    expect(body).toMatchObject({ namespace: 'keys-cli', role: 'agent', label: 'from a shell', revoked_at: null });
    expect(created.stderr).toContain('not shown again');

    const write = await stack.request('POST', '/v1/memories', { content: 'Teo lives in Porto.', skip_extraction: true }, body.key);
    expect(write.status).toBe(202);

    const listed = await keysCli(stack, ['list', '--namespace', 'keys-cli']);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { keys: KeyBody[] }).keys.map((k) => k.id)).toEqual([body.id]);
    expect(listed.stdout).not.toContain(body.key!);

    const revoked = await keysCli(stack, ['revoke', body.id]);
    expect(revoked.code).toBe(0);
    expect((await stack.request('GET', '/v1/memories', undefined, body.key)).status).toBe(401);

    const usage = await keysCli(stack, ['create', '--namespace', 'keys-cli', '--role', 'superuser']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('key.role');
    expect(usage.stderr).toContain('Usage:');
  });
});
