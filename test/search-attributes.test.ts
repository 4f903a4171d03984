import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { loadConfig } from '../core/config/config.js';
import { episodeWorkflowId } from '../core/ingest/contracts.js';
import { localActivityConcurrency, runsStagesLocally } from '../core/ingest/startExtraction.js';
import { ensureSearchAttributes } from '../core/temporal/searchAttributes.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';

const STAGE_ACTIVITIES = ['entityExtract', 'entityResolve', 'factExtract', 'factDedup', 'temporalResolve', 'contradiction', 'commitEpisode'];

/** The dev server's visibility is eventually consistent: polls briefly until the filter finds the workflow. */
async function findByFilter(stack: TestStack, query: string, workflowId: string): Promise<WorkflowExecutionInfo> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    for await (const info of stack.deps.temporal.client.workflow.list({ query })) if (info.workflowId === workflowId) return info;
    if (Date.now() > deadline) throw new Error(`${workflowId} not found by ${query}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function scheduledStages(stack: TestStack, workflowId: string) {
  const history = await stack.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (!scheduled) return [];
    const summary = e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary) : null;
    return [{ type: scheduled.activityType?.name ?? '', summary }];
  });
}

describe('Temporal search attributes and stage visibility (issue 15)', () => {
  let stack: TestStack;
  const ns = `sa-${Date.now().toString(36)}`;

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('registers the attributes idempotently (the worker already did at start)', async () => {
    expect(await ensureSearchAttributes(stack.deps.temporal, stack.deps.config.TEMPORAL_NAMESPACE)).toEqual([]);
    const listed = await stack.deps.temporal.connection.operatorService.listSearchAttributes({ namespace: stack.deps.config.TEMPORAL_NAMESPACE });
    expect(Object.keys(listed.customAttributes ?? {})).toEqual(expect.arrayContaining(['MnemoNamespace', 'MnemoUserId', 'MnemoEpisodeStatus']));
  });

  it('an extracted episode is found by namespace, user and status', async () => {
    const { id } = await remember(stack, { namespace: ns, user_id: 'u-7', content: 'Stefan works at Premex.' });
    const info = await findByFilter(stack, `MnemoNamespace="${ns}" AND MnemoEpisodeStatus="extracted"`, episodeWorkflowId(id));
    expect(info.status.name).toBe('COMPLETED');
    await findByFilter(stack, `MnemoUserId="u-7" AND MnemoNamespace="${ns}"`, episodeWorkflowId(id));
    // Heuristic default: local stages, so no stage is an activity task in the history.
    expect(await scheduledStages(stack, episodeWorkflowId(id))).toEqual([]);
  });

  it('a failed extraction is found with MnemoEpisodeStatus="failed"', async () => {
    const failing = await startTestStack({
      workerOptions: {
        activityOverrides: {
          entityExtract: async () => {
            throw ApplicationFailure.nonRetryable('model refused', 'ModelRequestRejected');
          },
        },
      },
    });
    try {
      const { id, status } = await remember(failing, { namespace: ns, content: 'This one fails.' });
      expect(status).toBe('failed');
      const info = await findByFilter(failing, `MnemoNamespace="${ns}" AND MnemoEpisodeStatus="failed"`, episodeWorkflowId(id));
      expect(info.status.name).toBe('FAILED');
    } finally {
      await failing.stop();
    }
  });

  it('EXTRACTION_STAGES=activities runs the heuristic stages as activities, each with its summary', async () => {
    const visible = await startTestStack({ env: { EXTRACTION_STAGES: 'activities' } });
    try {
      const { id, status } = await remember(visible, { namespace: ns, content: 'Maria works at Acme.' });
      expect(status).toBe('extracted');
      const scheduled = await scheduledStages(visible, episodeWorkflowId(id));
      expect(scheduled.map((s) => s.type)).toEqual(expect.arrayContaining(STAGE_ACTIVITIES));
      expect(scheduled.find((s) => s.type === 'entityExtract')?.summary).toMatch(/^entity-extract: /);
      expect(scheduled.find((s) => s.type === 'commitEpisode')?.summary).toMatch(/^commit: /);
    } finally {
      await visible.stop();
    }
  });

  it('EXTRACTION_STAGES overrides the provider default', () => {
    const config = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'postgres://x/y', ...env } as NodeJS.ProcessEnv);
    expect(runsStagesLocally(config({}))).toBe(true);
    expect(runsStagesLocally(config({ EXTRACTION_STAGES: 'activities' }))).toBe(false);
    expect(runsStagesLocally(config({ LLM_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }))).toBe(false);
    expect(runsStagesLocally(config({ LLM_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', EXTRACTION_STAGES: 'local' }))).toBe(true);
    expect(() => config({ EXTRACTION_STAGES: 'sometimes' })).toThrow(/EXTRACTION_STAGES/);
  });

  it('runs eight heuristic stages at once per worker and fifty model calls, unless EXTRACTION_CONCURRENCY says', () => {
    const config = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'postgres://x/y', ...env } as NodeJS.ProcessEnv);
    const openai = { LLM_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' };
    expect(localActivityConcurrency(config({}))).toBe(8);
    expect(localActivityConcurrency(config(openai))).toBe(50);
    expect(localActivityConcurrency(config({ EXTRACTION_CONCURRENCY: '12' }))).toBe(12);
    expect(localActivityConcurrency(config({ ...openai, EXTRACTION_CONCURRENCY: '2' }))).toBe(2);
    expect(() => config({ EXTRACTION_CONCURRENCY: '0' })).toThrow(/EXTRACTION_CONCURRENCY/);
  });
});
