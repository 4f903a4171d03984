import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { reviewStateQuery } from '../core/reviews/contracts.js';
import { reviewWorkflowId, startReviewWorkflows } from '../core/reviews/start.js';
import { eventually } from './support/eventually.js';
import { insertAcmeGraph, insertMergeProposal } from './support/reviewFixtures.js';
import { startTestStack, type TestStack } from './support/stack.js';
import { startTimeSkippingEnvironment, timeSkippingAddress } from './support/timeSkipping.js';

/**
 * An item closed outside its review workflow (the history re-chain closes
 * conflicts it made moot) is not escalated later: the workflow ends when its
 * escalation time comes. Its own time-skipping server, so the clock starts at
 * the item's creation.
 */
describe('a review item closed elsewhere', () => {
  let env: TestWorkflowEnvironment;
  let stack: TestStack;
  beforeAll(async () => {
    env = await startTimeSkippingEnvironment();
    stack = await startTestStack({ temporalAddress: timeSkippingAddress(env), env: { EMBEDDING_PROVIDER: 'hash' } });
  });
  afterAll(async () => {
    await stack?.stop();
    await env?.teardown();
  });

  it('ends at its escalation time without escalating', async () => {
    const ns = 'review-moot';
    const g = await insertAcmeGraph(stack.deps.pool, ns);
    const merge = await insertMergeProposal(stack.deps.pool, ns, g.acme, g.acmeCorp);
    expect(await startReviewWorkflows(stack.deps, [merge])).toBe(1);
    const handle = stack.deps.temporal.client.workflow.getHandle(reviewWorkflowId(merge));
    await eventually(() => handle.query(reviewStateQuery), (state) => state !== null, 'the workflow loaded its item');
    await stack.deps.pool.query(`UPDATE review_item SET status = 'resolved', resolution = '{"reason": "closed elsewhere"}' WHERE id = $1`, [merge]);

    await env.sleep('73h');
    expect(await handle.result()).toMatchObject({ reviewId: merge, outcome: 'already_decided', applied: false });
    const { rows } = await stack.deps.pool.query<{ escalated_at: Date | null }>('SELECT escalated_at FROM review_item WHERE id = $1', [merge]);
    expect(rows[0].escalated_at).toBeNull();
    const audit = await stack.deps.pool.query(`SELECT 1 FROM audit_log WHERE namespace = $1 AND action = 'review.escalated'`, [ns]);
    expect(audit.rows).toEqual([]);
  });
});
