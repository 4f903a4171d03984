import { createApiKey } from '../core/auth/apiKeys.js';
import { remember, startTestStack, waitForStatus, type TestStack } from './support/stack.js';

/** PATCH /v1/memories/:id and GET /v1/memories/:id/history (issue 20, "Updating a memory"). */

interface ErrorBody {
  error: { code: string; message: string; details: unknown };
}
interface UpdateBody {
  id: string;
  version: number;
  changed: boolean;
  content_changed: boolean;
  status: string;
  workflow_id: string;
  started: boolean;
}
interface HistoryBody {
  episode_id: string;
  current_version: number;
  versions: Array<{
    version: number;
    current: boolean;
    content: string;
    metadata: Record<string, unknown>;
    replaced_at: string | null;
    replaced_by: { actor: string; request_id: string | null } | null;
    workflow_id: string | null;
    supported_fact_ids: string[];
    settled: boolean | null;
    facts_expired: number;
  }>;
}
interface FactRow {
  id: string;
  predicate: string;
  object: string;
  expired_at: Date | null;
  properties: Record<string, unknown>;
}

describe('updating a memory', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function facts(namespace: string): Promise<FactRow[]> {
    const { rows } = await stack.deps.pool.query<FactRow>(
      `SELECT f.id, f.predicate, coalesce(o.name, f.value) AS object, f.expired_at, f.properties
         FROM fact f LEFT JOIN entity o ON o.id = f.object_id WHERE f.namespace = $1 ORDER BY f.recorded_at, f.id`,
      [namespace],
    );
    return rows;
  }
  const find = (rows: FactRow[], predicate: string, object: string) => {
    const hit = rows.filter((r) => r.predicate === predicate && r.object === object);
    if (hit.length !== 1) throw new Error(`expected one ${predicate} ${object} in ${JSON.stringify(rows)}`);
    return hit[0];
  };

  it('keeps the old content as a version, re-extracts, expires only what the old content alone said', async () => {
    const ns = 'upd-main';
    const a = await remember(stack, { content: 'Stefan works at Premex. Stefan likes chess. Stefan lives in Berlin.', namespace: ns });
    expect(a.status).toBe('extracted');
    // Another live episode also says Stefan likes chess.
    await remember(stack, { content: 'Stefan likes chess.', namespace: ns });
    const before = await facts(ns);
    const works = find(before, 'works_at', 'Premex');
    const chess = find(before, 'likes', 'chess');
    const berlin = find(before, 'lives_in', 'Berlin');

    const patched = await stack.request<UpdateBody>('PATCH', `/v1/memories/${a.id}`, { content: 'Stefan lives in Berlin. Stefan likes jazz.' });
    expect(patched.status).toBe(202);
    expect(patched.body).toMatchObject({ id: a.id, version: 2, changed: true, content_changed: true, status: 'pending', workflow_id: `episode:${a.id}:v2`, started: true });
    const done = await waitForStatus(stack, a.id);
    expect(done.status).toBe('extracted');

    const after = await facts(ns);
    // Only the old content said Stefan works at Premex: no longer current (system time), with the reason.
    const worksAfter = after.find((r) => r.id === works.id)!;
    expect(worksAfter.expired_at).not.toBeNull();
    expect(worksAfter.properties.retracted_by).toEqual({ episode_id: a.id, version: 1 });
    // Supported by another episode: kept. Stated again by the new content: kept, same fact.
    expect(after.find((r) => r.id === chess.id)!.expired_at).toBeNull();
    expect(find(after, 'lives_in', 'Berlin')).toMatchObject({ id: berlin.id, expired_at: null });
    expect(after.filter((r) => r.predicate === 'lives_in')).toHaveLength(1);
    // What the new content adds.
    expect(find(after, 'likes', 'jazz').expired_at).toBeNull();

    const history = await stack.request<HistoryBody>('GET', `/v1/memories/${a.id}/history`);
    expect(history.status).toBe(200);
    expect(history.body.current_version).toBe(2);
    expect(history.body.versions.map((v) => [v.version, v.current])).toEqual([[1, false], [2, true]]);
    const [v1, v2] = history.body.versions;
    expect(v1).toMatchObject({
      content: 'Stefan works at Premex. Stefan likes chess. Stefan lives in Berlin.',
      replaced_by: { actor: 'key:env:MNEMO_API_KEY' },
      workflow_id: `episode:${a.id}`,
      settled: true,
      facts_expired: 1,
    });
    expect(v1.supported_fact_ids).toEqual(expect.arrayContaining([works.id, chess.id, berlin.id]));
    expect(v1.replaced_by?.request_id).toBeTruthy();
    expect(v2).toMatchObject({ content: 'Stefan lives in Berlin. Stefan likes jazz.', replaced_at: null, workflow_id: `episode:${a.id}:v2` });

    const { rows: audit } = await stack.deps.pool.query<{ action: string; target_id: string; actor: string; after: Record<string, unknown> }>(
      `SELECT action, target_id, actor, after FROM audit_log WHERE namespace = $1 AND action IN ('episode.updated', 'fact.expired') ORDER BY id`,
      [ns],
    );
    expect(audit).toEqual([
      expect.objectContaining({ action: 'episode.updated', target_id: a.id, actor: 'key:env:MNEMO_API_KEY', after: expect.objectContaining({ version: 2, content_changed: true }) }),
      expect.objectContaining({ action: 'fact.expired', target_id: works.id, actor: 'workflow:ingestEpisode', after: expect.objectContaining({ reason: 'memory content replaced' }) }),
    ]);
  });

  it('changes metadata alone without re-extracting; an equal patch changes nothing', async () => {
    const ns = 'upd-meta';
    const a = await remember(stack, { content: 'Giulia lives in Turin.', namespace: ns, metadata: { channel: 'cli' } });
    const factsBefore = await facts(ns);
    const patched = await stack.request<UpdateBody>('PATCH', `/v1/memories/${a.id}`, { metadata: { channel: 'web' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ version: 2, changed: true, content_changed: false, status: 'extracted', workflow_id: `episode:${a.id}` });
    const same = await stack.request<UpdateBody>('PATCH', `/v1/memories/${a.id}`, { metadata: { channel: 'web' }, content: 'Giulia lives in Turin.' });
    expect(same.body).toMatchObject({ version: 2, changed: false });
    const history = await stack.request<HistoryBody>('GET', `/v1/memories/${a.id}/history`);
    expect(history.body.versions.map((v) => [v.version, v.metadata])).toEqual([
      [1, { channel: 'cli' }],
      [2, { channel: 'web' }],
    ]);
    expect(history.body.versions[0]).toMatchObject({ settled: true, facts_expired: 0 });
    expect(await facts(ns)).toEqual(factsBefore);
  });

  it('scopes by namespace (404), validates the body (400) and refuses a change while extracting (409)', async () => {
    const ns = 'upd-scope';
    const a = await remember(stack, { content: 'Nadia works at Orbital.', namespace: ns });
    const { key } = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'someone-else' });
    expect((await stack.request<ErrorBody>('PATCH', `/v1/memories/${a.id}`, { content: 'x' }, key)).status).toBe(404);
    expect((await stack.request<ErrorBody>('GET', `/v1/memories/${a.id}/history`, undefined, key)).status).toBe(404);
    const forbidden = await stack.request<ErrorBody>('GET', `/v1/memories?namespace=${ns}`, undefined, key);
    expect(forbidden.status).toBe(403);
    expect((await stack.request<ErrorBody>('PATCH', '/v1/memories/00000000-0000-4000-8000-000000000000', { content: 'x' })).status).toBe(404);
    for (const body of [{}, { content: '' }, { content: 'ok', colour: 'red' }, { metadata: 'no' }]) {
      const res = await stack.request<ErrorBody>('PATCH', `/v1/memories/${a.id}`, body);
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 400, code: 'invalid_input' });
    }
    // Its own namespace's key may update it.
    const own = await createApiKey(stack.deps.pool, { role: 'agent', namespace: ns });
    const ok = await stack.request<UpdateBody>('PATCH', `/v1/memories/${a.id}`, { content: 'Nadia works at Vega.' }, own.key);
    expect(ok.status).toBe(202);
    // The new content is being extracted: a second content change waits its turn.
    const busy = await stack.request<ErrorBody>('PATCH', `/v1/memories/${a.id}`, { content: 'Nadia works at Lyra.' });
    if (busy.status !== 409) expect(busy.status).toBe(202); // the run may already have finished on a fast machine
    await waitForStatus(stack, a.id);
  });

  it('serializes concurrent patches: one content change wins, the other is refused, versions stay consistent', async () => {
    const ns = 'upd-race';
    const a = await remember(stack, { content: 'Omar lives in Cairo.', namespace: ns });
    const results = await Promise.all(
      ['Omar lives in Lagos.', 'Omar lives in Lima.', 'Omar lives in Oslo.'].map((content) => stack.request<UpdateBody | ErrorBody>('PATCH', `/v1/memories/${a.id}`, { content })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 409, 409]);
    await waitForStatus(stack, a.id);
    const history = await stack.request<HistoryBody>('GET', `/v1/memories/${a.id}/history`);
    expect(history.body.versions.map((v) => v.version)).toEqual([1, 2]);
    const winner = history.body.versions[1].content;
    const city = winner.replace('Omar lives in ', '').replace('.', '');
    const all = await facts(ns);
    const current = all.filter((f) => f.predicate === 'lives_in' && f.expired_at === null);
    expect(current.map((f) => f.object)).toEqual([city]);
    // The old value is retracted (no world-time end: it was never true as far as the memory knows), not superseded,
    // and the conflict the new statement would have opened against it is moot.
    const { rows: cairo } = await stack.deps.pool.query<{ invalid_at: Date | null; expired_at: Date | null; properties: Record<string, unknown> }>(
      `SELECT f.invalid_at, f.expired_at, f.properties FROM fact f JOIN entity o ON o.id = f.object_id WHERE f.namespace = $1 AND o.name = 'Cairo'`,
      [ns],
    );
    expect(cairo).toEqual([{ invalid_at: null, expired_at: expect.any(Date), properties: expect.objectContaining({ retracted_by: { episode_id: a.id, version: 1 } }) }]);
    const { rows: open } = await stack.deps.pool.query(`SELECT id FROM review_item WHERE namespace = $1 AND status IN ('open', 'escalated')`, [ns]);
    expect(open).toEqual([]);
    expect(all.filter((f) => f.properties.pending_review)).toEqual([]);
  });

  it('correcting a fact\'s value moves its object and text with it (PATCH /v1/facts/:id)', async () => {
    const ns = 'upd-correct';
    await remember(stack, { content: 'Stefan works at Premex.', namespace: ns });
    await remember(stack, { content: 'Liam works at Globex Corp.', namespace: ns });
    const premex = find(await facts(ns), 'works_at', 'Premex');
    type View = { object: { id: string; name: string } | null; value: string | null; fact_text: string; previous_values: Array<Record<string, unknown>> };
    // A value naming a known entity of the object's type: the fact now points at it.
    const toGlobex = await stack.request<View>('PATCH', `/v1/facts/${premex.id}`, { value: 'Globex Corp' });
    expect(toGlobex.status).toBe(200);
    expect(toGlobex.body).toMatchObject({ object: { name: 'Globex Corp' }, value: null, fact_text: 'Stefan works at Globex Corp.' });
    expect(toGlobex.body.previous_values[0]).toMatchObject({ fact_text: 'Stefan works at Premex.', object_id: expect.any(String) });
    // An unknown name: a literal value, and the text follows.
    const toVega = await stack.request<View>('PATCH', `/v1/facts/${premex.id}`, { value: 'Vega Labs' });
    expect(toVega.body).toMatchObject({ object: null, value: 'Vega Labs', fact_text: 'Stefan works at Vega Labs.' });
    // An explicit text wins over the derived one.
    const both = await stack.request<View>('PATCH', `/v1/facts/${premex.id}`, { value: 'Lyra', fact_text: 'Stefan is employed by Lyra.' });
    expect(both.body).toMatchObject({ value: 'Lyra', fact_text: 'Stefan is employed by Lyra.' });
    const { rows } = await stack.deps.pool.query<{ after: Record<string, unknown> }>(
      `SELECT after FROM audit_log WHERE action = 'fact.corrected' AND target_id = $1 ORDER BY id`,
      [premex.id],
    );
    expect(rows[0].after).toMatchObject({ value: null, fact_text: 'Stefan works at Globex Corp.', object_id: toGlobex.body.object!.id });
  });
});
