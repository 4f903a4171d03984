// Records `ingestEpisode` histories with the search-attributes-v1 patch and stage summaries (issue 15):
//   TEST_DATABASE_ADMIN_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx scripts/histories/searchAttributes.ts
import { ApplicationFailure } from '@temporalio/common';
import { remember, startTestStack } from '../../test/support/stack.js';
import { saveHistory, startRecordingServer } from './save.js';

const server = await startRecordingServer();
try {
  const refuse = async () => {
    throw ApplicationFailure.nonRetryable('model refused', 'ModelRequestRejected');
  };
  const cases: Array<{ name: string; env: Record<string, string>; overrides: Record<string, () => Promise<never>> }> = [
    { name: 'ingestEpisode-search-attributes-local', env: {}, overrides: {} },
    { name: 'ingestEpisode-search-attributes-activities', env: { EXTRACTION_STAGES: 'activities' }, overrides: {} },
    {
      name: 'ingestEpisode-search-attributes-failed',
      env: {},
      overrides: { entityExtract: refuse },
    },
  ];
  for (const c of cases) {
    const stack = await startTestStack({ env: c.env, workerOptions: { activityOverrides: c.overrides } });
    try {
      const { id } = await remember(stack, { namespace: 'history', user_id: 'u-1', content: 'Maria works at Acme Corp.', occurred_at: '2026-02-02T00:00:00Z' });
      saveHistory(server.address, `episode:${id}`, c.name);
    } finally {
      await stack.stop();
    }
  }
} finally {
  await server.teardown();
}
