import { createApiKey } from '../core/auth/apiKeys.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';

const NS = 'gov-export';

interface ExportDoc {
  namespace: string;
  user_id: string;
  episodes: Array<{ id: string; content: string }>;
  facts: Array<{ id: string; fact_text: string; sensitivity: string; invalidated_by: string | null; supersedes: string[]; episode_ids: string[] }>;
  entities: Array<{ id: string; name: string; sensitivity: string }>;
  work_sessions: unknown[];
  session_turns: Array<{ content: string }>;
  persistent_tasks: unknown[];
  review_items: unknown[];
  audit: Array<{ action: string; target_id: string }>;
  counts: Record<string, number>;
  withheld: { reason: string; by_sensitivity: { confidential: Record<string, number>; restricted: Record<string, number> } };
}

describe('GET /v1/users/:user_id/export', () => {
  let stack: TestStack;
  let agent: { key: string };
  let operator: { key: string };

  beforeAll(async () => {
    stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' } });
    await stack.deps.pool.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [NS]);
    agent = await createApiKey(stack.deps.pool, { role: 'agent', namespace: NS });
    operator = await createApiKey(stack.deps.pool, { role: 'operator', namespace: NS });
    await remember(stack, { namespace: NS, user_id: 'ana', content: 'Ana likes jazz.' });
    await remember(stack, { namespace: NS, user_id: 'ana', content: 'Ana lives in Madrid.', occurred_at: '2025-01-01T00:00:00Z' });
    await remember(stack, { namespace: NS, user_id: 'ana', content: 'Ana lives in Seville.', occurred_at: '2026-01-01T00:00:00Z' });
    await remember(stack, { namespace: NS, user_id: 'ana', content: 'Ana has diabetes and takes insulin.' });
    await remember(stack, { namespace: NS, user_id: 'ana', content: 'Ana has the password hunter2secret.' });
    await remember(stack, { namespace: NS, user_id: 'someone-else', content: 'Zed likes opera.' });
    const turn = await stack.request('POST', '/v1/sessions/ana-chat/turns', { namespace: NS, user_id: 'ana', role: 'user', content: 'Let us plan the trip.' });
    expect(turn.status).toBe(202);
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function exportAs(key: string, user = 'ana', query = ''): Promise<{ status: number; raw: string; doc: ExportDoc }> {
    const res = await fetch(`${stack.baseUrl}/v1/users/${user}/export?namespace=${NS}${query}`, { headers: { authorization: `Bearer ${key}` } });
    const raw = await res.text();
    return { status: res.status, raw, doc: JSON.parse(raw) as ExportDoc };
  }

  it('gives an agent everything but confidential and restricted rows, and says what it withheld', async () => {
    const { status, raw, doc } = await exportAs(agent.key);
    expect(status).toBe(200);
    expect(doc).toMatchObject({ namespace: NS, user_id: 'ana' });
    expect(raw).not.toMatch(/hunter2secret/);
    expect(raw).not.toMatch(/diabetes|insulin/i);
    expect(raw).not.toMatch(/Zed|opera\./); // another user's
    expect(doc.episodes.map((e) => e.content).sort()).toEqual(['Ana likes jazz.', 'Ana lives in Madrid.', 'Ana lives in Seville.']);
    expect(doc.facts.every((f) => f.sensitivity !== 'restricted' && f.sensitivity !== 'confidential')).toBe(true);
    expect(doc.withheld.by_sensitivity.restricted.episodes).toBe(1);
    expect(doc.withheld.by_sensitivity.confidential.episodes).toBe(1);
    expect(doc.withheld.reason).toMatch(/confidential rows .* only to operator and admin keys/);
    expect(doc.session_turns.map((t) => t.content)).toEqual(['Let us plan the trip.']);
    expect(doc.work_sessions).toHaveLength(1);
    expect(doc.entities.map((e) => e.name)).toContain('Ana');
    expect(doc.audit.length).toBeGreaterThan(0);
    expect(doc.counts.episodes).toBe(3);
  });

  it('gives operators confidential rows too, never restricted ones, and facts with their history chains', async () => {
    const { raw, doc } = await exportAs(operator.key);
    expect(raw).not.toMatch(/hunter2secret/);
    expect(raw).toMatch(/diabetes/);
    expect(doc.episodes).toHaveLength(4);
    expect(doc.withheld.by_sensitivity.restricted.episodes).toBe(1);
    expect(doc.withheld.by_sensitivity.confidential).toEqual({});
    // Madrid was superseded by Seville: both are exported, linked both ways.
    const madrid = doc.facts.find((f) => /Madrid/.test(f.fact_text));
    const seville = doc.facts.find((f) => /Seville/.test(f.fact_text));
    expect(madrid?.invalidated_by).toBe(seville?.id);
    expect(seville?.supersedes).toEqual([madrid?.id]);
    expect(madrid?.episode_ids).toHaveLength(2); // the episode that stated it and the one that ended it
  });

  it('streams a large user page by page as one JSON document', async () => {
    await stack.deps.pool.query(
      `INSERT INTO episode (id, namespace, user_id, content, occurred_at, workflow_id, status)
       SELECT gen_random_uuid(), $1, 'big', 'Note number ' || i || ' ' || repeat('lorem ipsum ', 20), now(), 'episode:bulk-' || i, 'skipped'
         FROM generate_series(1, 1300) AS i`,
      [NS],
    );
    const { status, raw, doc } = await exportAs(operator.key, 'big');
    expect(status).toBe(200);
    expect(raw.length).toBeGreaterThan(1300 * 200);
    expect(doc.episodes).toHaveLength(1300);
    expect(new Set(doc.episodes.map((e) => e.id)).size).toBe(1300);
    expect(doc.counts.episodes).toBe(1300);
  });

  it('include_forgotten is for operators; other namespaces are 403', async () => {
    expect((await stack.request('GET', `/v1/users/ana/export?namespace=${NS}&include_forgotten=true`, undefined, agent.key)).status).toBe(403);
    expect((await stack.request('GET', `/v1/users/ana/export?namespace=elsewhere`, undefined, agent.key)).status).toBe(403);
    expect((await stack.request('GET', `/v1/users/ana/export?namespace=${NS}&bogus=1`, undefined, agent.key)).status).toBe(400);
  });
});
