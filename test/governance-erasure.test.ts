import { createHash } from 'node:crypto';
import { createApiKey } from '../core/auth/apiKeys.js';
import { ERASE_USER_WORKFLOW_TYPE, eraseWorkflowId, type EraseUserInput } from '../core/governance/contracts.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';
import { spawnWorkerProcess, stopProcess } from './support/workerProcess.js';
import type { SearchResponse } from '../client/types.js';

const NS = 'gov-erase';
const OTHER_NS = 'gov-erase-other';
/** Words that appear nowhere but in the erased user's memories (and, for OTHER_WORD, the other namespace's). */
const WORD = 'Zentrovax';
const OTHER_WORD = 'Vextrolume';

interface ErasureBody {
  id: string;
  status: string;
  step: string | null;
  counts: Record<string, number>;
  batches: number;
  user_hash: string;
  finished_at: string | null;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('erasure of a user (DELETE /v1/users/:user_id, eraseUser workflow)', () => {
  let stack: TestStack;
  let agent: { key: string };
  let operator: { key: string };

  beforeAll(async () => {
    stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' } });
    for (const ns of [NS, OTHER_NS]) await stack.deps.pool.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [ns]);
    agent = await createApiKey(stack.deps.pool, { role: 'agent', namespace: NS });
    operator = await createApiKey(stack.deps.pool, { role: 'operator', namespace: NS });
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function waitForErasure(id: string, timeoutMs = 60_000): Promise<ErasureBody> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await stack.request<ErasureBody>('GET', `/v1/erasures/${encodeURIComponent(id)}`, undefined, operator.key);
      if (res.status === 200 && res.body.status === 'completed') return res.body;
      if (Date.now() > deadline) throw new Error(`erasure ${id} did not complete: ${JSON.stringify(res.body)}`);
      await sleep(100);
    }
  }

  /** Every row of every public table whose text, varchar, text[] or jsonb columns hold `word` (Temporal's own store aside). */
  async function rowsHolding(word: string): Promise<Array<{ table: string; column: string; n: number }>> {
    const { rows: columns } = await stack.deps.pool.query<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
        WHERE c.table_schema = 'public'
          AND (c.data_type IN ('text', 'character varying', 'jsonb', 'json') OR (c.data_type = 'ARRAY' AND c.udt_name IN ('_text', '_varchar')))`,
    );
    expect(columns.length).toBeGreaterThan(20);
    const found: Array<{ table: string; column: string; n: number }> = [];
    for (const { table_name, column_name } of columns) {
      const { rows } = await stack.deps.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${table_name}" WHERE "${column_name}"::text ILIKE $1`,
        [`%${word}%`],
      );
      if (rows[0].n) found.push({ table: table_name, column: column_name, n: rows[0].n });
    }
    return found;
  }

  it('erases everything about the user and nothing of anybody else', async () => {
    const mira = [
      await remember(stack, { namespace: NS, user_id: 'mira', speaker: 'Mira', content: `Mira works at ${WORD}. Mira lives in Lisbon.` }),
      await remember(stack, { namespace: NS, user_id: 'mira', speaker: 'Mira', content: `I visited the ${WORD} office in Porto yesterday.` }),
      await remember(stack, { namespace: NS, user_id: 'mira', speaker: 'Mira', content: 'Mira works at Orbital Labs.' }),
    ];
    const bob = await remember(stack, { namespace: NS, user_id: 'bob', speaker: 'Bob', content: 'Bob likes hiking in Sintra.' });
    const elsewhere = await remember(stack, { namespace: OTHER_NS, user_id: 'mira', content: `Mira works at ${OTHER_WORD}.` });
    expect(mira.every((m) => m.status === 'extracted')).toBe(true);

    // A working-memory session and a persistent task of hers, with the word in them.
    const turn = await stack.request('POST', '/v1/sessions/mira-chat/turns', { namespace: NS, user_id: 'mira', role: 'user', content: `Remember ${WORD} please.` });
    expect(turn.status).toBe(202);
    const task = await stack.request<{ id: string; workflow_id: string }>('POST', '/v1/tasks', {
      namespace: NS,
      user_id: 'mira',
      intent: `Watch ${WORD} news`,
      schedule: { every: '1h' },
    });
    expect(task.status).toBe(201);

    // "Orbital Labs" is shared: Bob's episode mentions Mira's entity too (as a namespace-wide entity learnt before user scopes would be).
    const { rows: orbital } = await stack.deps.pool.query<{ id: string }>(`SELECT id FROM entity WHERE namespace = $1 AND scope_user = 'mira' AND name = 'Orbital Labs'`, [NS]);
    expect(orbital).toHaveLength(1);
    await stack.deps.pool.query(`INSERT INTO entity_episode (entity_id, episode_id, surface) VALUES ($1, $2, 'Orbital Labs')`, [orbital[0].id, bob.id]);
    expect(await rowsHolding(WORD)).not.toEqual([]);

    // Agents may not erase.
    expect((await stack.request('DELETE', `/v1/users/mira?namespace=${NS}`, undefined, agent.key)).status).toBe(403);

    const res = await stack.request<{ id: string; workflow_id: string; status: string }>('DELETE', `/v1/users/mira?namespace=${NS}`, undefined, operator.key);
    expect(res.status).toBe(202);
    expect(res.body.id).toBe(eraseWorkflowId(NS, 'mira'));
    const done = await waitForErasure(res.body.id);
    expect(done).toMatchObject({ status: 'completed', step: null, user_hash: sha256('mira') });
    expect(done.counts).toMatchObject({ episodes: 3, tasks: 1, sessions: 1, entities_detached: 1 });
    expect(done.counts.facts).toBeGreaterThanOrEqual(3);
    expect(done.counts.entities).toBeGreaterThanOrEqual(3);

    // No read finds the word.
    // Over the whole namespace the nearest vectors are Bob's; nothing of hers, nothing with the word.
    const everyone = (await stack.request<SearchResponse>('POST', '/v1/search', { namespace: NS, query: WORD, k: 50 })).body.results;
    expect(everyone.filter((r) => new RegExp(WORD, 'i').test(r.snippet) || mira.some((m) => m.id === r.id))).toEqual([]);
    expect((await stack.request<SearchResponse>('POST', '/v1/search', { namespace: NS, query: WORD, user_id: 'mira' })).body.results).toEqual([]);
    const context = await stack.request<{ text: string }>('GET', `/v1/context?namespace=${NS}&user_id=mira&query=${WORD}`);
    expect(context.body.text).not.toMatch(new RegExp(WORD, 'i'));
    expect((await stack.request<{ entities: unknown[] }>('GET', `/v1/entities?namespace=${NS}&q=${WORD}&include_forgotten=true`)).body.entities).toEqual([]);
    expect((await stack.request<{ facts: unknown[] }>('GET', `/v1/facts?namespace=${NS}&user_id=mira&include_invalidated=true&include_forgotten=true`)).body.facts).toEqual([]);
    expect((await stack.request('GET', `/v1/memories/${mira[0].id}`)).status).toBe(404);
    const exported = await stack.request<Record<string, unknown[]>>('GET', `/v1/users/mira/export?namespace=${NS}&include_forgotten=true`);
    for (const section of ['episodes', 'facts', 'entities', 'work_sessions', 'session_turns', 'persistent_tasks', 'review_items', 'audit']) {
      expect([section, exported.body[section]]).toEqual([section, []]);
    }

    // No row of any table holds it (Temporal's history aside).
    expect(await rowsHolding(WORD)).toEqual([]);
    const { rows: aboutMira } = await stack.deps.pool.query(
      `SELECT 'episode' FROM episode WHERE namespace = $1 AND user_id = 'mira'
       UNION ALL SELECT 'fact' FROM fact WHERE namespace = $1 AND scope_user = 'mira'
       UNION ALL SELECT 'entity' FROM entity WHERE namespace = $1 AND scope_user = 'mira'
       UNION ALL SELECT 'session' FROM work_session WHERE namespace = $1 AND user_id = 'mira'
       UNION ALL SELECT 'task' FROM persistent_task WHERE namespace = $1 AND user_id = 'mira'`,
      [NS],
    );
    expect(aboutMira).toEqual([]);

    // One audit row remains, with no content: the user by hash.
    const { rows: audit } = await stack.deps.pool.query(`SELECT action, target_type, target_id, before, after, actor FROM audit_log WHERE namespace = $1 AND target_type = 'user'`, [NS]);
    expect(audit).toEqual([{ action: 'user.erased', target_type: 'user', target_id: `sha256:${sha256('mira')}`, before: null, after: null, actor: expect.stringMatching(/^key:/) }]);

    // Her task's workflow was ended.
    const described = await stack.deps.temporal.client.workflow.getHandle(task.body.workflow_id).describe();
    expect(described.status.name).toBe('TERMINATED');

    // The shared entity stays, now Bob's, with only Bob's provenance.
    const { rows: kept } = await stack.deps.pool.query<{ scope_user: string; episodes: string[] }>(
      `SELECT scope_user, ARRAY(SELECT episode_id::text FROM entity_episode WHERE entity_id = n.id) AS episodes FROM entity n WHERE id = $1`,
      [orbital[0].id],
    );
    expect(kept).toEqual([{ scope_user: 'bob', episodes: [bob.id] }]);

    // Bob and the other namespace's Mira are untouched.
    expect((await stack.request<{ status: string }>('GET', `/v1/memories/${bob.id}`)).body.status).toBe('extracted');
    expect((await stack.request<{ facts: unknown[] }>('GET', `/v1/facts?namespace=${NS}&user_id=bob`)).body.facts.length).toBeGreaterThan(0);
    expect((await stack.request<{ id: string }>('GET', `/v1/memories/${elsewhere.id}`)).body.id).toBe(elsewhere.id);
    const other = await stack.request<SearchResponse>('POST', '/v1/search', { namespace: OTHER_NS, query: OTHER_WORD, user_id: 'mira' });
    expect(other.body.results.length).toBeGreaterThan(0);
    expect((await rowsHolding(OTHER_WORD)).length).toBeGreaterThan(0);

    // A second erase is a no-op with the same id.
    const again = await stack.request<{ id: string; status: string }>('DELETE', `/v1/users/mira?namespace=${NS}`, undefined, operator.key);
    expect(again).toEqual({ status: 202, body: { id: res.body.id, workflow_id: res.body.id, status: 'completed' } });
    expect((await stack.request<ErasureBody>('GET', `/v1/erasures/${encodeURIComponent(res.body.id)}`, undefined, operator.key)).body.counts).toEqual(done.counts);
  });

  it('an erasure whose worker is killed (SIGKILL) mid-way resumes on a new worker and finishes', async () => {
    for (let i = 0; i < 8; i++) await remember(stack, { namespace: NS, user_id: 'kim', content: `Kim met Dana${i} in Quellport${i}. Kim likes ${WORD}${i}.` });
    await stack.worker!.shutdown();
    // A worker in a process of its own, so that it can die the way a crashed host does.
    const child = spawnWorkerProcess(stack.deps.config, { EMBEDDING_PROVIDER: 'hash' });
    const workflowId = eraseWorkflowId(NS, 'kim');
    // A short heartbeat timeout: the killed worker's batch moves to the new worker within seconds, not the default 15 s.
    const input: EraseUserInput = { namespace: NS, userId: 'kim', batchSize: 1, batchesPerRun: 4, heartbeatTimeoutSeconds: 4 };
    const handle = await stack.deps.temporal.client.workflow.start(ERASE_USER_WORKFLOW_TYPE, { workflowId, taskQueue: stack.deps.temporal.taskQueue, args: [input] });
    try {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const progress = await stack.request<ErasureBody>('GET', `/v1/erasures/${encodeURIComponent(workflowId)}`, undefined, operator.key);
        if (progress.status === 200 && progress.body.batches >= 3) break;
        if (Date.now() > deadline) throw new Error(`the external worker never got the erasure going: ${JSON.stringify(progress.body)}`);
        await sleep(20);
      }
    } finally {
      await stopProcess(child, 'SIGKILL');
    }
    const midway = await stack.request<ErasureBody>('GET', `/v1/erasures/${encodeURIComponent(workflowId)}`, undefined, operator.key);
    expect(midway.body.status).toBe('running');
    const { rows: left } = await stack.deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM episode WHERE namespace = $1 AND user_id = 'kim'`, [NS]);
    expect(left[0].n).toBe(8); // killed before its episodes went

    await stack.startWorker();
    await handle.result();
    const done = await waitForErasure(workflowId);
    expect(done.counts).toMatchObject({ episodes: 8 });
    expect(done.batches).toBeGreaterThan(10); // batches of one row, over several continued runs
    const { rows: rest } = await stack.deps.pool.query(
      `SELECT 1 FROM episode WHERE namespace = $1 AND user_id = 'kim' UNION ALL SELECT 1 FROM fact WHERE namespace = $1 AND scope_user = 'kim'
       UNION ALL SELECT 1 FROM entity WHERE namespace = $1 AND scope_user = 'kim'`,
      [NS],
    );
    expect(rest).toEqual([]);
    expect(await rowsHolding('Quellport')).toEqual([]);
    const { rows: erased } = await stack.deps.pool.query(`SELECT 1 FROM audit_log WHERE namespace = $1 AND action = 'user.erased' AND target_id = $2`, [NS, `sha256:${sha256('kim')}`]);
    expect(erased).toHaveLength(1);
  });

  it('GET /v1/erasures/:id is for operators of the namespace; unknown ids are 404', async () => {
    const id = encodeURIComponent(eraseWorkflowId(NS, 'mira'));
    expect((await stack.request('GET', `/v1/erasures/${id}`, undefined, agent.key)).status).toBe(403);
    const stranger = await createApiKey(stack.deps.pool, { role: 'operator', namespace: OTHER_NS });
    expect((await stack.request('GET', `/v1/erasures/${id}`, undefined, stranger.key)).status).toBe(404);
    expect((await stack.request('GET', `/v1/erasures/${encodeURIComponent(eraseWorkflowId(NS, 'nobody'))}`, undefined, operator.key)).status).toBe(404);
    expect((await stack.request('DELETE', `/v1/users/mira?namespace=${NS}`, undefined, stranger.key)).status).toBe(403);
  });
});
