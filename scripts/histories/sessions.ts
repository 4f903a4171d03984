// Records real `session` workflow histories into test/histories/ for the replay test:
//   npx tsx scripts/histories/sessions.ts
// Needs the local PostgreSQL (+pgvector) and the temporal CLI, like the tests.
//   session-fold-expire: 21 turns (one fold into the summary), then expiry (ttl_seconds 2) and archive.
//   session-continue-as-new: the first run of a 205-turn session, which continues as new after 200 signals.
import { sessionWorkflowId } from '../../core/sessions/contracts.js';
import type { SessionView } from '../../core/sessions/read.js';
import { startTestStack, type TestStack } from '../../test/support/stack.js';
import { saveHistory, startRecordingServer, until } from './save.js';

const NS = 'history';


async function turn(stack: TestStack, taskId: string, body: Record<string, unknown>): Promise<void> {
  const res = await stack.request('POST', `/v1/sessions/${taskId}/turns`, { namespace: NS, ...body });
  if (res.status !== 202) throw new Error(`POST turn → ${res.status} ${JSON.stringify(res.body)}`);
}

const env = await startRecordingServer();
const address = env.address;
const stack = await startTestStack({ env: { EMBEDDING_PROVIDER: 'hash' } });
try {
  const opening = [
    'We need a storage plan for the Orion project. Priya Sharma from Helix Labs will review it.',
    'We decided to use PostgreSQL for the event store.',
    'I will send the migration plan to Priya by Friday.',
  ];
  for (let i = 0; i < 21; i++) {
    await turn(stack, 'fold-expire', { role: i % 2 ? 'assistant' : 'user', content: opening[i] ?? `Small talk ${i}.`, ttl_seconds: 2 });
  }
  await until(
    async () => (await stack.request<SessionView>('GET', `/v1/sessions/fold-expire?namespace=${NS}`)).body,
    (v) => v.status === 'archived',
    'the session archived',
  );
  await stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId(NS, 'fold-expire')).result();
  saveHistory(address, sessionWorkflowId(NS, 'fold-expire'), 'session-fold-expire');

  await turn(stack, 'long', { role: 'user', content: 'turn 0' });
  const firstRunId = (await stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId(NS, 'long')).describe()).runId;
  for (let i = 1; i < 205; i++) await turn(stack, 'long', { role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` });
  await until(
    () => stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId(NS, 'long'), firstRunId).describe(),
    (d) => d.status.name === 'CONTINUED_AS_NEW',
    'the first run continuing as new',
  );
  saveHistory(address, sessionWorkflowId(NS, 'long'), 'session-continue-as-new', firstRunId);
} finally {
  await stack.stop();
  await env.teardown();
}
