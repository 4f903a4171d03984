// Records real `review` workflow histories into test/histories/ for the replay test:
//   npx tsx scripts/histories/reviews.ts
// Needs the local PostgreSQL (+pgvector) and the temporal CLI, like the tests.
//   review-merge-approve: a merge proposal; two invalid CLI signals (ignored), then approve through the API: the merge applied.
//   review-escalate-resolve: an equal-confidence conflict nobody decides within REVIEW_ESCALATE_AFTER (2 s here):
//     escalated (flag, audit, webhook), then resolved through the API.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reviewStateQuery } from '../../core/reviews/contracts.js';
import { reviewWorkflowId, startReviewWorkflows } from '../../core/reviews/start.js';
import { insertAcmeGraph, insertConflict, insertMergeProposal } from '../../test/support/reviewFixtures.js';
import { startTestStack, type TestStack } from '../../test/support/stack.js';
import { saveHistory, startRecordingServer, until } from './save.js';

const NS = 'history';


async function decide(stack: TestStack, reviewId: string, decision: string, body?: unknown): Promise<void> {
  const res = await stack.request('POST', `/v1/reviews/${reviewId}/${decision}`, body);
  if (res.status !== 202) throw new Error(`POST ${decision} → ${res.status} ${JSON.stringify(res.body)}`);
  await stack.deps.temporal.client.workflow.getHandle(reviewWorkflowId(reviewId)).result();
}

const hook = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
const env = await startRecordingServer();
const address = env.address;
const stack = await startTestStack({
  env: { EMBEDDING_PROVIDER: 'hash', REVIEW_ESCALATE_AFTER: '2s', REVIEW_WEBHOOK_URL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook` },
});
try {
  const g = await insertAcmeGraph(stack.deps.pool, NS);
  const merge = await insertMergeProposal(stack.deps.pool, NS, g.acme, g.acmeCorp);
  await startReviewWorkflows(stack.deps, [merge]);
  const handle = stack.deps.temporal.client.workflow.getHandle(reviewWorkflowId(merge));
  await handle.signal('resolve', { keep_fact_id: g.facts.acmeHq });
  await handle.signal('approve', { by: '' });
  await until(() => handle.query(reviewStateQuery), (s) => (s?.ignoredCount ?? 0) === 2, 'two ignored signals');
  await decide(stack, merge, 'approve', { note: 'same company' });
  saveHistory(address, reviewWorkflowId(merge), 'review-merge-approve');

  const conflict = await insertConflict(stack.deps.pool, NS);
  await startReviewWorkflows(stack.deps, [conflict.reviewId]);
  await until(
    async () => (await stack.deps.pool.query('SELECT escalated_at FROM review_item WHERE id = $1', [conflict.reviewId])).rows[0].escalated_at,
    (v) => v !== null,
    'the escalation',
  );
  const conflictHandle = stack.deps.temporal.client.workflow.getHandle(reviewWorkflowId(conflict.reviewId));
  // The webhook activity completes after the flag: wait for it so the history holds the whole escalation.
  await until(
    async () => (await conflictHandle.fetchHistory()).events!.filter((e) => e.activityTaskCompletedEventAttributes).length,
    (n) => n >= 3,
    'the webhook call',
  );
  await decide(stack, conflict.reviewId, 'resolve', { keep_fact_id: conflict.candidate });
  saveHistory(address, reviewWorkflowId(conflict.reviewId), 'review-escalate-resolve');
} finally {
  await stack.stop();
  await env.teardown();
  await new Promise((resolve) => hook.close(resolve));
}
