import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { reviewStateQuery } from '../core/reviews/contracts.js';
import { persistentTaskWorkflowId, type TaskView } from '../core/tasks/contracts.js';
import type { ReviewView } from '../core/reviews/read.js';
import { reviewWorkflowId, startReviewWorkflows } from '../core/reviews/start.js';
import { ensureNamespace, insertAcmeGraph, insertMergeProposal, insertReview, waitForDecision } from './support/reviewFixtures.js';
import { startTestStack, type TestStack } from './support/stack.js';
import { startTimeSkippingEnvironment, timeSkippingAddress } from './support/timeSkipping.js';

/** Escalation after REVIEW_ESCALATE_AFTER (default 72 h) and task budgets, on Temporal's time-skipping server. */
describe('review workflows on the time-skipping server (escalation, task budgets)', () => {
  let env: TestWorkflowEnvironment;
  let stack: TestStack;
  let webhook: Server;
  const received: Array<{ event: string; review: ReviewView }> = [];

  beforeAll(async () => {
    webhook = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        // `/burst` is a persistent task's failing webhook; `/hook` the review webhook.
        if (req.url === '/burst') return void res.writeHead(500).end();
        received.push(JSON.parse(body) as { event: string; review: ReviewView });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    env = await startTimeSkippingEnvironment();
    stack = await startTestStack({
      temporalAddress: timeSkippingAddress(env),
      env: { REVIEW_WEBHOOK_URL: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook` },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await env?.teardown();
    await new Promise((resolve) => webhook?.close(resolve));
  });

  async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
    for (let i = 0; i < 200; i++) {
      const value = await probe();
      if (value) return value;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it('escalates an undecided item once after REVIEW_ESCALATE_AFTER (flag, audit row, webhook) and keeps waiting for the decision', async () => {
    const ns = 'review-escalation';
    const g = await insertAcmeGraph(stack.deps.pool, ns);
    const merge = await insertMergeProposal(stack.deps.pool, ns, g.acme, g.acmeCorp);
    await ensureNamespace(stack.deps.pool, ns);
    const informational = await insertReview(stack.deps.pool, ns, { kind: 'rejected_write' });
    expect(await startReviewWorkflows(stack.deps, [merge, informational])).toBe(2);
    const handle = stack.deps.temporal.client.workflow.getHandle(reviewWorkflowId(merge));
    await until('the workflow to load its item', () => handle.query(reviewStateQuery));

    const escalatedAt = async (id: string) =>
      (await stack.deps.pool.query<{ escalated_at: Date | null }>('SELECT escalated_at FROM review_item WHERE id = $1', [id])).rows[0].escalated_at;
    await env.sleep('71h');
    expect(await escalatedAt(merge)).toBeNull();
    expect(received).toEqual([]);

    await env.sleep('2h');
    await until('escalated_at', () => escalatedAt(merge));
    await until('the webhook', async () => received.length > 0);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ event: 'review.escalated', review: { id: merge, kind: 'merge', status: 'open', entity_ids: [g.acme, g.acmeCorp] } });
    expect(received[0].review.escalated_at).not.toBeNull();
    const audit = await stack.deps.pool.query('SELECT target_id, actor FROM audit_log WHERE namespace = $1 AND action = $2', [ns, 'review.escalated']);
    expect(audit.rows).toEqual([{ target_id: merge, actor: 'system:review' }]);
    // Informational items never escalate.
    expect(await escalatedAt(informational)).toBeNull();

    // Still waiting; escalation happens once.
    expect(await until('escalated state', async () => (await handle.query(reviewStateQuery))?.escalated)).toBe(true);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await env.sleep('100h');
    expect(received).toHaveLength(1);

    expect((await stack.request('POST', `/v1/reviews/${merge}/approve`)).status).toBe(202);
    const decided = await waitForDecision<ReviewView>(stack, merge);
    expect(decided).toMatchObject({ decision: 'approve', resolution: { merged: true } });
    expect(decided.escalated_at).not.toBeNull();
  });

  /** A task whose single failed burst spends its budget: it pauses itself and opens a task_budget review item. */
  async function taskWithSpentBudget(): Promise<{ taskId: string; reviewId: string }> {
    const port = (webhook.address() as AddressInfo).port;
    const created = await stack.request<{ id: string }>('POST', '/v1/tasks', {
      namespace: 'review-tasks', intent: 'Nightly sync', schedule: { every: '1h' }, error_budget: 1, webhook_url: `http://127.0.0.1:${port}/burst`,
    });
    expect(created.status).toBe(201);
    const taskId = created.body.id;
    const task = stack.deps.temporal.client.workflow.getHandle(persistentTaskWorkflowId(taskId));
    await until('the burst timer', async () => {
      const { events } = await task.fetchHistory();
      return events!.some((e) => e.timerStartedEventAttributes);
    });
    await env.sleep('1h');
    const review = await until('the task_budget review', async () => {
      const { rows } = await stack.deps.pool.query<{ id: string; workflow_id: string | null }>(
        `SELECT id, workflow_id FROM review_item WHERE kind = 'task_budget' AND payload->>'task_id' = $1`,
        [taskId],
      );
      return rows[0]?.workflow_id ? rows[0] : null;
    });
    return { taskId, reviewId: review.id };
  }
  const taskView = async (id: string) => (await stack.request<TaskView>('GET', `/v1/tasks/${id}`)).body;

  it('approving a task_budget item resumes the task with its budget restored; rejecting it cancels the task', async () => {
    const approved = await taskWithSpentBudget();
    expect(await taskView(approved.taskId)).toMatchObject({ status: 'paused', error_budget_remaining: 0 });
    expect((await stack.request('POST', `/v1/reviews/${approved.reviewId}/approve`)).status).toBe(202);
    const decided = await waitForDecision<ReviewView>(stack, approved.reviewId);
    expect(decided.resolution).toMatchObject({ applied: true, task_id: approved.taskId, signals: ['setBudget', 'resume'] });
    expect(await until('the task resumed', async () => {
      const t = await taskView(approved.taskId);
      return t.status === 'active' ? t : null;
    })).toMatchObject({ error_budget: 1, error_budget_remaining: 1 });

    const rejected = await taskWithSpentBudget();
    expect((await stack.request('POST', `/v1/reviews/${rejected.reviewId}/reject`)).status).toBe(202);
    expect((await waitForDecision<ReviewView>(stack, rejected.reviewId)).resolution).toMatchObject({ applied: true, signals: ['cancel'] });
    await until('the task cancelled', async () => (await taskView(rejected.taskId)).status === 'cancelled');
    await stack.request('POST', `/v1/tasks/${approved.taskId}/cancel`);
  });
});
