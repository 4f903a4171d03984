// Records real `ingestEpisode` histories into test/histories/ for the replay test:
//   npx tsx scripts/record-history.ts
// Needs the local PostgreSQL (+pgvector) and the temporal CLI, like the tests.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalCli } from '../core/embedded/temporalCli.js';
import { ROOT } from '../test/support/paths.js';
import { HeuristicProvider } from '../core/extraction/heuristic/index.js';
import { startOpenAIStub } from '../test/support/openaiStub.js';
import { providerResponder } from '../test/support/openaiStubResponder.js';
import { remember, startTestStack } from '../test/support/stack.js';

const env = await TestWorkflowEnvironment.createLocal({
  server: { executable: { type: 'existing-path', path: findTemporalCli() }, ip: '127.0.0.1', ui: false },
});
process.env.MNEMO_TEST_TEMPORAL_ADDRESS = env.connection.options.address;
const stack = await startTestStack();
try {
  const cases = [
    { name: 'ingestEpisode-supersede', bodies: [{ content: 'Stefan works at Premex.', occurred_at: '2026-01-10T09:00:00Z' }, { content: 'Stefan left Premex and now works at Acme.', occurred_at: '2026-03-01T09:00:00Z' }] },
    { name: 'ingestEpisode-skip', bodies: [{ content: 'Just a note to keep.', skip_extraction: true }] },
  ];
  for (const c of cases) {
    let last = '';
    for (const body of c.bodies) last = (await remember(stack, { namespace: 'history', ...body })).id;
    // The CLI writes the standard JSON history format that replay tooling reads.
    const json = execFileSync(findTemporalCli(), ['workflow', 'show', '--workflow-id', `episode:${last}`, '--address', env.connection.options.address, '--output', 'json']);
    const file = path.join(ROOT, 'test/histories', `${c.name}.json`);
    writeFileSync(file, json);
    console.log(`recorded ${file}`);
  }
} finally {
  await stack.stop();
}

// Remote stages (openai provider against the local stub): one model failure, then success.
const stub = await startOpenAIStub({ responder: providerResponder(new HeuristicProvider()) });
const remote = await startTestStack({ env: { LLM_PROVIDER: 'openai', OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'stub', LLM_TIMEOUT_MS: '5000' } });
try {
  stub.enqueue({ status: 500 });
  const done = await remember(remote, { namespace: 'history', content: 'Priya works at Helix. She lives in Pune.', occurred_at: '2026-02-02T00:00:00Z' });
  const json = execFileSync(findTemporalCli(), ['workflow', 'show', '--workflow-id', `episode:${done.id}`, '--address', env.connection.options.address, '--output', 'json']);
  const file = path.join(ROOT, 'test/histories', 'ingestEpisode-remote-retry.json');
  writeFileSync(file, json);
  console.log(`recorded ${file}`);
} finally {
  await remote.stop();
  await stub.close();
  await env.teardown();
}
