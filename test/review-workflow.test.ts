import { createApiKey } from '../core/auth/apiKeys.js';
import { reviewStateQuery } from '../core/reviews/contracts.js';
import { startUnstartedReviewWorkflows } from '../core/reviews/reconcile.js';
import type { ReviewView } from '../core/reviews/read.js';
import { reviewWorkflowId, startReviewWorkflows } from '../core/reviews/start.js';
import {
  insertAcmeGraph,
  insertConflict,
  insertMergeProposal,
  insertReview,
  waitForDecision,
  ensureNamespace,
} from './support/reviewFixtures.js';
import { eventually } from './support/eventually.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';

interface EntityMemoryJson {
  entity: { id: string; name: string; aliases: string[]; merged_into: string | null };
  facts: Array<{ id: string; predicate: string; fact_text: string }>;
}
interface ErrorJson {
  error: { code: string; message: string; details: Array<{ field: string; message: string }> | null };
}

describe('review workflow (real Temporal + Postgres)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  const db = () => stack.deps.pool;
  const audit = async (namespace: string, action: string) =>
    (await db().query<{ target_id: string; actor: string; after: Record<string, unknown> }>('SELECT target_id, actor, after FROM audit_log WHERE namespace = $1 AND action = $2 ORDER BY id', [namespace, action])).rows;
  const start = async (id: string) => expect(await startReviewWorkflows(stack.deps, [id])).toBe(1);
  const handle = (id: string) => stack.deps.temporal.client.workflow.getHandle(reviewWorkflowId(id));

  it('approve merges "Acme Corp" into "Acme": facts move, identical facts are confirmed not duplicated, aliases merge, reads follow merged_into', async () => {
    const ns = 'review-merge';
    const g = await insertAcmeGraph(db(), ns);
    const reviewId = await insertMergeProposal(db(), ns, g.acme, g.acmeCorp);
    await start(reviewId);
    expect((await db().query('SELECT workflow_id FROM review_item WHERE id = $1', [reviewId])).rows[0].workflow_id).toBe(`review:${reviewId}`);

    const listed = await stack.request<{ reviews: ReviewView[] }>('GET', `/v1/reviews?namespace=${ns}&status=open&kind=merge`);
    expect(listed.body.reviews.map((r) => r.id)).toEqual([reviewId]);

    const res = await stack.request<{ id: string; workflow_id: string; decision: string }>('POST', `/v1/reviews/${reviewId}/approve`, { note: 'same company' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: reviewId, workflow_id: `review:${reviewId}`, decision: 'approve' });
    const decided = await waitForDecision<ReviewView>(stack, reviewId);
    expect(decided).toMatchObject({ status: 'decided', decision: 'approve', decided_by: 'key:env:MNEMO_API_KEY' });
    expect(decided.decided_at).not.toBeNull();
    expect(decided.resolution).toMatchObject({ merged: true, applied: true, moved_facts: 4, note: 'same company' });
    expect(await handle(reviewId).result()).toMatchObject({ outcome: 'decided', decision: 'approve', applied: true });

    const entities = await db().query<{ id: string; aliases: string[]; merged_into: string | null; first_seen_at: Date; last_seen_at: Date }>(
      'SELECT id, aliases, merged_into, first_seen_at, last_seen_at FROM entity WHERE id = ANY($1) ORDER BY name',
      [[g.acme, g.acmeCorp]],
    );
    const [acme, acmeCorp] = entities.rows;
    expect(acme.aliases).toEqual(['ACME Inc', 'Acme Corp', 'AcmeCo']);
    expect(acme.merged_into).toBeNull();
    expect(acme.last_seen_at.toISOString()).toBe('2026-06-01T09:00:00.000Z');
    expect(acmeCorp.merged_into).toBe(g.acme);

    // No fact mentions the loser any more; the identical ones were folded into the survivor's.
    const facts = await db().query<{ id: string; subject_id: string; object_id: string | null; confirmation_count: number; last_confirmed_at: Date; expired_at: Date | null; invalidated_by: string | null }>(
      'SELECT id, subject_id, object_id, confirmation_count, last_confirmed_at, expired_at, invalidated_by FROM fact WHERE namespace = $1',
      [ns],
    );
    const byId = new Map(facts.rows.map((f) => [f.id, f]));
    expect(facts.rows.filter((f) => f.subject_id === g.acmeCorp || f.object_id === g.acmeCorp)).toEqual([]);
    for (const [kept, duplicate] of [[g.facts.aliceAtAcme, g.facts.aliceAtAcmeCorp], [g.facts.acmeHq, g.facts.acmeCorpHq]]) {
      expect(byId.get(kept)).toMatchObject({ confirmation_count: 2, expired_at: null });
      expect(byId.get(kept)!.last_confirmed_at.toISOString()).toBe('2026-06-01T09:00:00.000Z');
      expect(byId.get(duplicate)!.expired_at).not.toBeNull();
      expect(byId.get(duplicate)!.invalidated_by).toBe(kept);
    }
    const live = facts.rows.filter((f) => f.expired_at === null);
    expect(live).toHaveLength(4);
    expect(byId.get(g.facts.acmeCorpFounded)!.subject_id).toBe(g.acme);
    expect(byId.get(g.facts.bobAtAcmeCorp)!.object_id).toBe(g.acme);

    // Provenance: the survivor's fact is now supported by both episodes; the loser's mentions moved.
    const links = await db().query<{ episode_id: string; relation: string }>('SELECT episode_id, relation FROM fact_episode WHERE fact_id = $1 ORDER BY relation', [g.facts.aliceAtAcme]);
    expect(links.rows).toEqual([
      { episode_id: g.episodes.second, relation: 'confirmed' },
      { episode_id: g.episodes.first, relation: 'created' },
    ]);
    const mentions = await db().query<{ entity_id: string; episode_id: string }>('SELECT entity_id, episode_id FROM entity_episode WHERE entity_id = ANY($1) ORDER BY episode_id', [[g.acme, g.acmeCorp]]);
    expect(mentions.rows.map((m) => m.entity_id)).toEqual([g.acme, g.acme]);
    expect(mentions.rows.map((m) => m.episode_id).sort()).toEqual([g.episodes.first, g.episodes.second].sort());

    // Reads of the loser's id answer with the survivor.
    const byLoser = await stack.request<EntityMemoryJson>('GET', `/v1/entities/${g.acmeCorp}?namespace=${ns}`);
    expect(byLoser.status).toBe(200);
    expect(byLoser.body.entity).toMatchObject({ id: g.acme, name: 'Acme', merged_into: null });
    expect(byLoser.body.facts.map((f) => f.fact_text).sort()).toEqual(
      ['Acme Corp was founded in 1999.', 'Acme is headquartered in Berlin.', 'Alice works at Acme.', 'Bob works at Acme Corp.'],
    );
    const neighborhood = await stack.request<{ nodes: Array<{ id: string; depth: number }> }>('GET', `/v1/entities/${g.acmeCorp}/neighborhood?namespace=${ns}`);
    expect(neighborhood.body.nodes.find((n) => n.depth === 0)?.id).toBe(g.acme);
    const bySubject = await stack.request<{ facts: Array<{ fact_text: string }> }>('GET', `/v1/facts?namespace=${ns}&subject=${g.acmeCorp}`);
    expect(bySubject.body.facts.map((f) => f.fact_text).sort()).toEqual(['Acme Corp was founded in 1999.', 'Acme is headquartered in Berlin.']);

    // Audited.
    expect((await audit(ns, 'entity.merged')).map((a) => a.target_id)).toEqual([g.acmeCorp]);
    expect((await audit(ns, 'fact.moved')).length).toBe(4);
    expect((await audit(ns, 'fact.confirmed')).map((a) => a.target_id).sort()).toEqual([g.facts.aliceAtAcme, g.facts.acmeHq].sort());
    expect(await audit(ns, 'review.decided')).toEqual([expect.objectContaining({ target_id: reviewId, actor: 'key:env:MNEMO_API_KEY' })]);
    expect((await audit(ns, 'review.decision_requested')).map((a) => a.target_id)).toEqual([reviewId]);

    // A second decision on a decided item.
    const again = await stack.request<ErrorJson>('POST', `/v1/reviews/${reviewId}/reject`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    const decidedList = await stack.request<{ reviews: ReviewView[] }>('GET', `/v1/reviews?namespace=${ns}&status=decided`);
    expect(decidedList.body.reviews.map((r) => r.id)).toEqual([reviewId]);
  });

  it('reject leaves both entities untouched and remembers the pair in merge_rejection', async () => {
    const ns = 'review-merge-reject';
    const g = await insertAcmeGraph(db(), ns);
    const before = await db().query('SELECT id, aliases, merged_into FROM entity WHERE namespace = $1 ORDER BY id', [ns]);
    const factsBefore = await db().query('SELECT id, subject_id, object_id, expired_at, confirmation_count FROM fact WHERE namespace = $1 ORDER BY id', [ns]);
    const reviewId = await insertMergeProposal(db(), ns, g.acme, g.acmeCorp);
    // No workflow yet: the route starts it (signal-with-start).
    expect((await stack.request('POST', `/v1/reviews/${reviewId}/reject`, { note: 'two companies' })).status).toBe(202);
    const decided = await waitForDecision<ReviewView>(stack, reviewId);
    expect(decided).toMatchObject({ decision: 'reject', workflow_id: `review:${reviewId}`, resolution: { merged: false, applied: true } });
    expect((await db().query('SELECT id, aliases, merged_into FROM entity WHERE namespace = $1 ORDER BY id', [ns])).rows).toEqual(before.rows);
    expect((await db().query('SELECT id, subject_id, object_id, expired_at, confirmation_count FROM fact WHERE namespace = $1 ORDER BY id', [ns])).rows).toEqual(factsBefore.rows);
    const [a, b] = [g.acme, g.acmeCorp].sort();
    const rejection = await db().query('SELECT namespace, entity_a, entity_b, review_id FROM merge_rejection');
    expect(rejection.rows.filter((r) => r.namespace === ns)).toEqual([{ namespace: ns, entity_a: a, entity_b: b, review_id: reviewId }]);
    expect((await audit(ns, 'merge.rejected')).length).toBe(1);
  });

  it('resolve keeps the chosen fact of an equal-confidence conflict and invalidates the other', async () => {
    const ns = 'review-conflict';
    const c = await insertConflict(db(), ns);
    await start(c.reviewId);
    const res = await stack.request('POST', `/v1/reviews/${c.reviewId}/resolve`, { keep_fact_id: c.candidate });
    expect(res.status).toBe(202);
    const decided = await waitForDecision<ReviewView>(stack, c.reviewId);
    expect(decided).toMatchObject({ decision: 'resolve', resolution: { kept_fact_id: c.candidate, invalidated_fact_id: c.existing, applied: true } });
    const rows = await db().query<{ id: string; invalid_at: Date | null; expired_at: Date | null; invalidated_by: string | null; properties: Record<string, unknown> }>(
      'SELECT id, invalid_at, expired_at, invalidated_by, properties FROM fact WHERE id = ANY($1)',
      [[c.existing, c.candidate]],
    );
    const kept = rows.rows.find((r) => r.id === c.candidate)!;
    const other = rows.rows.find((r) => r.id === c.existing)!;
    expect(kept).toMatchObject({ invalid_at: null, expired_at: null, invalidated_by: null });
    expect(kept.properties.pending_review).toBeUndefined();
    // Same valid time: the other value never held.
    expect(other.invalid_at?.toISOString()).toBe('2026-05-01T00:00:00.000Z');
    expect(other.invalidated_by).toBe(c.candidate);
    expect(other.expired_at).not.toBeNull();
    const current = await stack.request<{ facts: Array<{ id: string }> }>('GET', `/v1/facts?namespace=${ns}&subject=${c.nadia}`);
    expect(current.body.facts.map((f) => f.id)).toEqual([c.candidate]);
    expect((await audit(ns, 'fact.invalidated')).map((a) => a.target_id)).toEqual([c.existing]);
    expect((await audit(ns, 'fact.review_kept')).map((a) => a.target_id)).toEqual([c.candidate]);
  });

  it('reject of a conflict keeps the existing fact (the held-back candidate stays out)', async () => {
    const ns = 'review-conflict-reject';
    const c = await insertConflict(db(), ns);
    expect((await stack.request('POST', `/v1/reviews/${c.reviewId}/reject`)).status).toBe(202);
    const decided = await waitForDecision<ReviewView>(stack, c.reviewId);
    expect(decided.resolution).toMatchObject({ kept_fact_id: c.existing, invalidated_fact_id: c.candidate });
    const current = await stack.request<{ facts: Array<{ id: string }> }>('GET', `/v1/facts?namespace=${ns}&subject=${c.nadia}`);
    expect(current.body.facts.map((f) => f.id)).toEqual([c.existing]);
  });

  it('rejects bad decisions at the API: 400 for invalid input, 409 when the decision does not fit the item', async () => {
    const ns = 'review-validation';
    const c = await insertConflict(db(), ns);
    const g = await insertAcmeGraph(db(), ns);
    const merge = await insertMergeProposal(db(), ns, g.acme, g.acmeCorp);
    const cases: Array<[string, unknown, number, string | null]> = [
      [`/v1/reviews/${c.reviewId}/resolve`, {}, 400, 'keep_fact_id'],
      [`/v1/reviews/${c.reviewId}/resolve`, { keep_fact_id: 'not-a-uuid' }, 400, 'keep_fact_id'],
      [`/v1/reviews/${c.reviewId}/resolve`, { keep_fact_id: g.facts.acmeHq }, 400, 'keep_fact_id'],
      [`/v1/reviews/${c.reviewId}/approve`, { surprise: true }, 400, '(body)'],
      [`/v1/reviews/${merge}/resolve`, { keep_fact_id: c.existing }, 409, null],
    ];
    for (const [path, body, status, field] of cases) {
      const res = await stack.request<ErrorJson>('POST', path, body);
      expect([path, res.status]).toEqual([path, status]);
      if (field) expect(res.body.error.details?.map((d) => d.field)).toContain(field);
    }
    expect((await stack.request('GET', `/v1/reviews?namespace=${ns}&status=closed`)).status).toBe(400);
    expect((await stack.request('GET', `/v1/reviews?namespace=${ns}&kind=nope`)).status).toBe(400);
    expect((await stack.request('GET', `/v1/reviews?namespace=${ns}&cursor=garbage`)).status).toBe(400);
    expect((await stack.request('GET', '/v1/reviews/not-a-uuid')).status).toBe(404);
    // A merge whose loser was forgotten meanwhile cannot be approved.
    await db().query('UPDATE entity SET forgotten_at = now() WHERE id = $1', [g.acmeCorp]);
    expect((await stack.request('POST', `/v1/reviews/${merge}/approve`)).status).toBe(409);
    // None of these reached a workflow.
    expect((await db().query('SELECT count(*)::int AS n FROM review_item WHERE namespace = $1 AND workflow_id IS NOT NULL', [ns])).rows[0].n).toBe(0);
  });

  it('pages through the list with a cursor, newest first', async () => {
    const ns = 'review-paging';
    await ensureNamespace(db(), ns);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await insertReview(db(), ns, { kind: 'rejected_write', createdAt: `2026-05-0${i + 1}T00:00:00Z` }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/v1/reviews?namespace=${ns}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await stack.request<{ reviews: ReviewView[]; next_cursor: string | null }>('GET', query);
      expect(page.status).toBe(200);
      seen.push(...page.body.reviews.map((r) => r.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it('keeps namespaces apart and requires the operator role', async () => {
    const c = await insertConflict(db(), 'review-iso-a');
    const other = await createApiKey(db(), { role: 'operator', namespace: 'review-iso-b' });
    const agent = await createApiKey(db(), { role: 'agent', namespace: 'review-iso-a' });
    expect((await stack.request('GET', `/v1/reviews/${c.reviewId}`, undefined, other.key)).status).toBe(404);
    expect((await stack.request('POST', `/v1/reviews/${c.reviewId}/approve`, undefined, other.key)).status).toBe(404);
    expect((await stack.request('GET', '/v1/reviews?namespace=review-iso-a', undefined, other.key)).status).toBe(403);
    const own = await stack.request<{ reviews: ReviewView[] }>('GET', '/v1/reviews', undefined, other.key);
    expect(own.body.reviews).toEqual([]);
    expect((await stack.request('GET', `/v1/reviews/${c.reviewId}`, undefined, agent.key)).status).toBe(403);
    expect((await stack.request('POST', `/v1/reviews/${c.reviewId}/approve`, undefined, agent.key)).status).toBe(403);
    const mine = await createApiKey(db(), { role: 'operator', namespace: 'review-iso-a' });
    const listed = await stack.request<{ reviews: ReviewView[] }>('GET', '/v1/reviews', undefined, mine.key);
    expect(listed.body.reviews.map((r) => r.id)).toEqual([c.reviewId]);
    expect((await db().query('SELECT status FROM review_item WHERE id = $1', [c.reviewId])).rows[0].status).toBe('open');
  });

  it('records invalid CLI signals instead of crashing, then takes a valid one', async () => {
    const ns = 'review-cli';
    const c = await insertConflict(db(), ns);
    await start(c.reviewId);
    const h = handle(c.reviewId);
    await h.signal('resolve', { keep_fact_id: 'bogus' });
    await h.signal('resolve', { keep_fact_id: '99999999-9999-4999-8999-999999999999' });
    await h.signal('approve', 42);
    let state = await h.query(reviewStateQuery);
    for (let i = 0; i < 100 && (state === null || state.ignoredCount < 3); i++) {
      await new Promise((r) => setTimeout(r, 50));
      state = await h.query(reviewStateQuery);
    }
    if (!state) throw new Error('the workflow never loaded its item');
    expect(state.decision).toBeNull();
    expect(state.ignoredCount).toBe(3);
    expect(state.ignored.map((i) => i.signal)).toEqual(['resolve', 'resolve', 'approve']);
    expect((await h.describe()).status.name).toBe('RUNNING');
    // As `temporal workflow signal --workflow-id review:<id> --name resolve --input '{"keep_fact_id":"…"}'` sends it.
    await h.signal('resolve', { keep_fact_id: c.existing });
    expect(await h.result()).toMatchObject({ outcome: 'decided', decision: 'resolve', applied: true });
    expect((await db().query('SELECT decided_by FROM review_item WHERE id = $1', [c.reviewId])).rows[0].decided_by).toBe('temporal:signal');
  });

  it('acknowledges an informational rejected_write item without touching the graph', async () => {
    const ns = 'review-ack';
    await ensureNamespace(db(), ns);
    const id = await insertReview(db(), ns, { kind: 'rejected_write', payload: { reason: 'lower confidence' } });
    expect((await stack.request('POST', `/v1/reviews/${id}/approve`)).status).toBe(202);
    const decided = await waitForDecision<ReviewView>(stack, id);
    expect(decided.resolution).toMatchObject({ acknowledged: true, informational: true });
  });

  it('reconcile starts the workflows of open items that have none (Temporal was down, or older items)', async () => {
    const ns = 'review-reconcile';
    const c = await insertConflict(db(), ns);
    const decided = await insertReview(db(), ns, { kind: 'rejected_write' });
    await db().query(`UPDATE review_item SET status = 'decided', decision = 'approve' WHERE id = $1`, [decided]);
    let started = 0;
    // Other tests' items may be pending too: drain until ours is started.
    for (let i = 0; i < 5 && !(await db().query('SELECT workflow_id FROM review_item WHERE id = $1', [c.reviewId])).rows[0].workflow_id; i++) {
      started += (await startUnstartedReviewWorkflows(stack.deps, 100)).started;
    }
    expect(started).toBeGreaterThanOrEqual(1);
    expect((await db().query('SELECT workflow_id FROM review_item WHERE id = $1', [c.reviewId])).rows[0].workflow_id).toBe(`review:${c.reviewId}`);
    expect((await handle(c.reviewId).describe()).status.name).toBe('RUNNING');
    expect((await db().query('SELECT workflow_id FROM review_item WHERE id = $1', [decided])).rows[0].workflow_id).toBeNull();
    // Idempotent: a second pass starts nothing for it.
    expect(await startReviewWorkflows(stack.deps, [c.reviewId])).toBe(0);
    await handle(c.reviewId).signal('reject');
    expect(await handle(c.reviewId).result()).toMatchObject({ outcome: 'decided' });
  });

  it('a conflict the pipeline opens (equal confidence, same valid time) has its workflow and is resolved through it', async () => {
    const ns = 'review-pipeline';
    const at = '2026-05-01T00:00:00Z';
    await remember(stack, { namespace: ns, content: 'Nadia works at Globex.', t_valid_override: at });
    await remember(stack, { namespace: ns, content: 'Nadia works at Initech.', t_valid_override: at });
    // The episode reads `extracted` once the commit's transaction ends; the commit activity starts the review
    // workflow after that and records its id, so the id may follow the status by a Temporal round trip.
    const { rows } = await eventually(
      () =>
        db().query<{ id: string; fact_ids: string[]; workflow_id: string | null }>(
          `SELECT id, fact_ids, workflow_id FROM review_item WHERE namespace = $1 AND kind = 'conflict'`,
          [ns],
        ),
      (result) => result.rows.length !== 1 || result.rows[0].workflow_id !== null,
      'the conflict review workflow id recorded',
      15_000,
    );
    expect(rows).toHaveLength(1);
    const [item] = rows;
    expect(item.workflow_id).toBe(`review:${item.id}`);
    const [existing, candidate] = item.fact_ids;
    expect((await stack.request('POST', `/v1/reviews/${item.id}/resolve`, { keep_fact_id: candidate })).status).toBe(202);
    await waitForDecision(stack, item.id);
    const current = await stack.request<{ facts: Array<{ id: string; fact_text: string }> }>('GET', `/v1/facts?namespace=${ns}&subject=Nadia&predicate=works_at`);
    expect(current.body.facts.map((f) => f.id)).toEqual([candidate]);
    const history = await stack.request<{ facts: Array<{ id: string; invalidated_by: string | null }> }>(
      'GET', `/v1/facts?namespace=${ns}&subject=Nadia&predicate=works_at&include_invalidated=true`,
    );
    expect(history.body.facts.find((f) => f.id === existing)?.invalidated_by).toBe(candidate);
  });
});
