import { createLogger } from '../core/logger.js';
import { createSessionSummarizer } from '../core/sessions/summarizer.js';
import { startOpenAIStub, type OpenAIStub } from './support/openaiStub.js';

/** LLM_PROVIDER=openai: the fold is a zod-validated JSON-mode call, here against a real OpenAI-compatible HTTP stub. */
describe('model session summarizer', () => {
  let stub: OpenAIStub;
  beforeAll(async () => {
    stub = await startOpenAIStub();
  });
  afterAll(async () => {
    await stub.close();
  });

  const summarizer = () =>
    createSessionSummarizer(
      { LLM_PROVIDER: 'openai', OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'stub', LLM_MODEL: 'summary-model', LLM_TIMEOUT_MS: 5_000 },
      createLogger({ LOG_LEVEL: 'silent' }),
    );

  it('sends the summary so far and the turns, and keeps earlier items the model left out', async () => {
    stub.enqueue({ content: JSON.stringify({ decisions: ['Ship on Monday.'], commitments: [], entities: ['Helix Labs'], notes: ['Release planning.'] }) });
    const doc = await summarizer()(
      { decisions: ['Use PostgreSQL for the event store.'], commitments: [], entities: ['Priya Sharma'], notes: [] },
      [{ turnIndex: 11, role: 'user', content: 'Helix Labs wants it Monday; we ship on Monday.' }],
    );
    expect(doc).toEqual({
      decisions: ['Use PostgreSQL for the event store.', 'Ship on Monday.'],
      commitments: [],
      entities: ['Priya Sharma', 'Helix Labs'],
      notes: ['Release planning.'],
    });
    const request = stub.chatRequests().at(-1)!;
    expect(request.model).toBe('summary-model');
    expect(request.response_format).toEqual({ type: 'json_object' });
    const prompt = String(request.messages[1].content);
    expect(prompt).toContain('- Use PostgreSQL for the event store.');
    expect(prompt).toContain('[turn 11] user: Helix Labs wants it Monday');
  });

  it('asks for a repair when the answer does not match the schema', async () => {
    stub.enqueue({ content: '{"decisions": "not a list"}' }, { content: JSON.stringify({ decisions: ['Go.'], commitments: [], entities: [], notes: [] }) });
    const doc = await summarizer()(null, [{ turnIndex: 0, role: 'user', content: 'Go.' }]);
    expect(doc.decisions).toEqual(['Go.']);
    expect(String(stub.chatRequests().at(-1)!.messages.at(-1)!.content)).toContain('Your previous answer is invalid');
  });
});
