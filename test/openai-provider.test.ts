import { ApplicationFailure } from '@temporalio/common';
import { pino } from 'pino';
import { OpenAIEmbedder } from '../core/embedding/openai.js';
import { MAX_REPAIR_ATTEMPTS, MODEL_FAILURE_TYPES, OpenAIProvider } from '../core/extraction/openai/index.js';
import type { EpisodeText, ResolutionItem } from '../core/extraction/types.js';
import { startOpenAIStub, type OpenAIStub } from './support/openaiStub.js';

const logger = pino({ level: 'silent' });
// A hanging stub is given a short deadline so those tests stay quick; a stub that answers is
// given a long one, since a loaded CI machine can take more than half a second to serialise
// 256 vectors (a 500 ms deadline there failed CI once).
const HANG_TIMEOUT_MS = 500;
const ANSWER_TIMEOUT_MS = 20_000;

const episode: EpisodeText = {
  text: 'I left Google last May to join Anthropic. My manager Bob Smith says hi.',
  speaker: 'Ada',
  occurredAt: '2026-02-01T10:00:00.000Z',
};

const entitiesAnswer = {
  entities: [
    { name: 'Ada', type: 'person', aliases: [] },
    { name: 'Google', type: 'organization', aliases: [] },
    { name: 'Anthropic', type: 'organization' },
    { name: 'Bob Smith', type: 'person', aliases: ['Bob'] },
  ],
};

const fact = (overrides: Record<string, unknown> = {}) => ({
  subject: 'Ada',
  predicate: 'works_at',
  predicate_raw: 'join',
  family: 'work',
  object: 'Anthropic',
  value: null,
  fact_text: 'Ada works at Anthropic.',
  memory_kind: 'semantic',
  importance: 0.8,
  confidence: 0.9,
  negated: false,
  time_expression: 'last May',
  ...overrides,
});

let stub: OpenAIStub;

function provider(timeoutMs = ANSWER_TIMEOUT_MS): OpenAIProvider {
  return new OpenAIProvider({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: undefined, LLM_MODEL: 'test-model', LLM_TIMEOUT_MS: timeoutMs }, logger);
}

/** Runs `fn`, expecting it to throw an ApplicationFailure, and returns it. */
async function failureOf(fn: () => Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApplicationFailure);
    return error as ApplicationFailure;
  }
  throw new Error('expected a failure');
}

beforeAll(async () => {
  stub = await startOpenAIStub();
});

afterEach(() => stub.reset());

afterAll(async () => {
  await stub.close();
});

describe('OpenAIProvider: structured answers', () => {
  test('entity answer parses into candidates and usage is counted', async () => {
    stub.enqueue({ content: JSON.stringify(entitiesAnswer), usage: { prompt_tokens: 321, completion_tokens: 45 } });
    const result = await provider().extractEntities(episode);

    expect(result.entities).toEqual([
      { name: 'Ada', type: 'person', aliases: [] },
      { name: 'Google', type: 'organization', aliases: [] },
      { name: 'Anthropic', type: 'organization', aliases: [] },
      { name: 'Bob Smith', type: 'person', aliases: ['Bob'] },
    ]);
    expect(result.usage).toEqual({ modelCalls: 1, tokensIn: 321, tokensOut: 45 });

    const [request] = stub.chatRequests();
    expect(request.model).toBe('test-model');
    expect(request.response_format).toEqual({ type: 'json_object' });
    const system = String(request.messages[0].content);
    expect(system).toContain('"I", "me", "my", "mine", "myself" refer to "Ada"');
    expect(system).toContain('"The CEO" -> "CEO"');
    expect(String(request.messages[1].content)).toContain(episode.text);
    expect(String(request.messages[1].content)).toContain(episode.occurredAt);
  });

  test('fact answer parses; first-person and alias names map to canonical entity names', async () => {
    stub.enqueue({
      content: JSON.stringify({
        facts: [
          fact({ subject: 'I' }),
          fact({ predicate: 'left', predicate_raw: 'left', family: 'events', object: 'google', memory_kind: 'episode', fact_text: 'Ada left Google.' }),
          fact({ subject: 'Bob', predicate: 'manages', predicate_raw: 'manager', object: 'me', time_expression: null, fact_text: 'Bob Smith manages Ada.' }),
          fact({ predicate: 'prefers', family: 'preferences', object: null, value: 'email', memory_kind: 'viewpoint' }),
        ],
      }),
    });
    const entities = entitiesAnswer.entities.map((e) => ({ name: e.name, type: e.type, aliases: e.aliases ?? [] }));
    const result = await provider().extractFacts(episode, entities);

    expect(result.facts.map((f) => [f.subject, f.predicate, f.object, f.value, f.time_expression])).toEqual([
      ['Ada', 'works_at', 'Anthropic', null, 'last May'],
      ['Ada', 'left', 'Google', null, 'last May'],
      ['Bob Smith', 'manages', 'Ada', null, null],
      ['Ada', 'prefers', null, 'email', 'last May'],
    ]);
    expect(result.facts[1].memory_kind).toBe('episode');
    expect(result.usage.modelCalls).toBe(1);
    const user = String(stub.chatRequests()[0].messages[1].content);
    expect(user).toContain('"name": "Bob Smith"');
    const system = String(stub.chatRequests()[0].messages[0].content);
    for (const phrase of ['snake_case', 'time_expression', 'negated', 'viewpoint', 'works_at']) expect(system).toContain(phrase);
  });

  test('entity judgement: one batched call, only for candidates with stored neighbours', async () => {
    const items: ResolutionItem[] = [
      { index: 0, candidate: { name: 'Bob Smith', type: 'person', aliases: ['Bob'] }, nearest: [{ id: 'e-1', name: 'Robert Smith', type: 'person', aliases: ['Bob'], similarity: 0.81 }] },
      { index: 1, candidate: { name: 'Anthropic', type: 'organization', aliases: [] }, nearest: [] },
      { index: 2, candidate: { name: 'Google', type: 'organization', aliases: [] }, nearest: [{ id: 'e-2', name: 'Goggle Inc', type: 'organization', aliases: [], similarity: 0.6 }] },
    ];
    stub.enqueue({ content: JSON.stringify({ decisions: [{ index: 0, match_id: 'e-1' }, { index: 2, match_id: null }] }) });
    const result = await provider().judgeEntities(episode, items);

    expect(result.decisions).toEqual([
      { index: 0, match_id: 'e-1' },
      { index: 1, match_id: null },
      { index: 2, match_id: null },
    ]);
    expect(stub.chatRequests()).toHaveLength(1);
    expect(String(stub.chatRequests()[0].messages[1].content)).not.toContain('"Anthropic"');
  });

  test('entity judgement with no stored neighbours makes no call', async () => {
    const result = await provider().judgeEntities(episode, [{ index: 0, candidate: { name: 'Ada', type: 'person', aliases: [] }, nearest: [] }]);
    expect(result).toEqual({ decisions: [{ index: 0, match_id: null }], usage: { modelCalls: 0, tokensIn: 0, tokensOut: 0 } });
    expect(stub.requests).toHaveLength(0);
  });

  test('entity judgement naming an id it was not shown is repaired', async () => {
    const items: ResolutionItem[] = [
      { index: 0, candidate: { name: 'Bob', type: 'person', aliases: [] }, nearest: [{ id: 'e-1', name: 'Bob Smith', type: 'person', aliases: [], similarity: 0.9 }] },
    ];
    stub.enqueue({ content: JSON.stringify({ decisions: [{ index: 0, match_id: 'e-999' }] }) }, { content: JSON.stringify({ decisions: [{ index: 0, match_id: 'e-1' }] }) });
    const result = await provider().judgeEntities(episode, items);
    expect(result.decisions).toEqual([{ index: 0, match_id: 'e-1' }]);
    expect(result.usage.modelCalls).toBe(2);
    expect(String(stub.chatRequests()[1].messages.at(-1)?.content)).toContain('"e-999" for index 0 is not one of its stored entities');
  });

  test('JSON wrapped in a Markdown fence is accepted', async () => {
    stub.enqueue({ content: '```json\n{"entities": [{"name": "Google", "type": "organization"}]}\n```' });
    const result = await provider().extractEntities(episode);
    expect(result.entities).toEqual([{ name: 'Google', type: 'organization', aliases: [] }]);
  });

  test('an entity listed twice comes back once, aliases united', async () => {
    stub.enqueue({
      content: JSON.stringify({
        entities: [
          { name: 'Stefan', type: 'person', aliases: ['Stef'] },
          { name: 'stefan', type: 'person', aliases: ['Stefan', 'S.'] },
        ],
      }),
    });
    const result = await provider().extractEntities(episode);
    expect(result.entities).toEqual([{ name: 'Stefan', type: 'person', aliases: ['Stef', 'S.'] }]);
  });
});

describe('OpenAIProvider: error classification', () => {
  test('429 → retryable ModelUnavailable, no SDK-internal retry', async () => {
    stub.enqueue({ status: 429, message: 'slow down' });
    const failure = await failureOf(() => provider().extractEntities(episode));
    expect(failure.nonRetryable).toBeFalsy();
    expect(failure.type).toBe(MODEL_FAILURE_TYPES.unavailable);
    expect(failure.message).toContain('model endpoint returned 429 (rate limited)');
    expect(stub.requests).toHaveLength(1);
  });

  test('500 and 503 → retryable', async () => {
    stub.enqueue({ status: 500 }, { status: 503 });
    for (const status of [500, 503]) {
      const failure = await failureOf(() => provider().extractEntities(episode));
      expect(failure.nonRetryable).toBeFalsy();
      expect(failure.type).toBe(MODEL_FAILURE_TYPES.unavailable);
      expect(failure.message).toContain(`model endpoint returned ${status} (server error)`);
    }
    expect(stub.requests).toHaveLength(2);
  });

  test('a hanging response → retryable timeout after LLM_TIMEOUT_MS', async () => {
    stub.enqueue({ hang: true });
    const failure = await failureOf(() => provider(HANG_TIMEOUT_MS).extractEntities(episode));
    expect(failure.nonRetryable).toBeFalsy();
    expect(failure.type).toBe(MODEL_FAILURE_TYPES.unavailable);
    expect(failure.message).toBe(`model endpoint ${stub.url} timed out after ${HANG_TIMEOUT_MS} ms`);
  });

  test('an unreachable endpoint → retryable connection error', async () => {
    const closed = await startOpenAIStub();
    const url = closed.url;
    await closed.close();
    const p = new OpenAIProvider({ OPENAI_BASE_URL: url, OPENAI_API_KEY: undefined, LLM_MODEL: 'm', LLM_TIMEOUT_MS: ANSWER_TIMEOUT_MS }, logger);
    const failure = await failureOf(() => p.extractEntities(episode));
    expect(failure.nonRetryable).toBeFalsy();
    expect(failure.type).toBe(MODEL_FAILURE_TYPES.unavailable);
    expect(failure.message).toContain(`could not reach model endpoint ${url}`);
  });

  test.each([
    [400, 'bad request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not found'],
  ])('%i → non-retryable ModelRequestRejected', async (status, label) => {
    stub.enqueue({ status, message: 'nope' });
    const failure = await failureOf(() => provider().extractEntities(episode));
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe(MODEL_FAILURE_TYPES.rejected);
    expect(failure.message).toContain(`model endpoint returned ${status} (${label}`);
    expect(stub.requests).toHaveLength(1);
  });
});

describe('OpenAIProvider: malformed output', () => {
  test('malformed JSON is repaired when the repair call answers correctly', async () => {
    stub.enqueue(
      { content: '{"entities": [{"name": "Google", ', usage: { prompt_tokens: 100, completion_tokens: 10 } },
      { content: JSON.stringify({ entities: [{ name: 'Google', type: 'organization' }] }), usage: { prompt_tokens: 130, completion_tokens: 20 } },
    );
    const result = await provider().extractEntities(episode);
    expect(result.entities).toEqual([{ name: 'Google', type: 'organization', aliases: [] }]);
    expect(result.usage).toEqual({ modelCalls: 2, tokensIn: 230, tokensOut: 30 });

    const repair = stub.chatRequests()[1].messages;
    expect(repair).toHaveLength(4);
    expect(repair[2]).toEqual({ role: 'assistant', content: '{"entities": [{"name": "Google", ' });
    expect(repair[3].role).toBe('user');
    expect(String(repair[3].content)).toContain('not valid JSON');
  });

  test('JSON that fails the schema (wrong field types) is treated as malformed and repaired', async () => {
    stub.enqueue(
      { content: JSON.stringify({ facts: [fact({ importance: 'high', negated: 'no' })] }) },
      { content: JSON.stringify({ facts: [fact()] }) },
    );
    const result = await provider().extractFacts(episode, [{ name: 'Ada', type: 'person', aliases: [] }]);
    expect(result.facts).toHaveLength(1);
    expect(result.facts[0].importance).toBe(0.8);
    const complaint = String(stub.chatRequests()[1].messages[3].content);
    expect(complaint).toContain('does not match the required schema');
    expect(complaint).toContain('importance');
  });

  test('malformed forever → non-retryable MalformedModelOutput after exactly 1 + 2 calls', async () => {
    stub.setResponder(() => 'Sure! Here are the entities: Google, Anthropic.');
    const failure = await failureOf(() => provider().extractEntities(episode));
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe(MODEL_FAILURE_TYPES.malformed);
    expect(failure.message).toMatch(/^model returned malformed output after 2 repair attempts: not valid JSON/);
    expect(stub.chatRequests()).toHaveLength(1 + MAX_REPAIR_ATTEMPTS);
    expect(failure.details).toEqual([{ stage: 'entity-extract', usage: expect.objectContaining({ modelCalls: 3 }) }]);
  });

  test('an unknown enum value is malformed too', async () => {
    stub.setResponder(() => JSON.stringify({ entities: [{ name: 'Google', type: 'company' }] }));
    const failure = await failureOf(() => provider().extractEntities(episode));
    expect(failure.type).toBe(MODEL_FAILURE_TYPES.malformed);
    expect(failure.message).toContain('type');
    expect(stub.chatRequests()).toHaveLength(3);
  });

  test('a transport error during a repair is still retryable', async () => {
    stub.enqueue({ content: 'not json' }, { status: 502 });
    const failure = await failureOf(() => provider().extractEntities(episode));
    expect(failure.nonRetryable).toBeFalsy();
    expect(failure.type).toBe(MODEL_FAILURE_TYPES.unavailable);
  });
});

describe('OpenAIEmbedder', () => {
  const embedder = (timeoutMs = ANSWER_TIMEOUT_MS) =>
    new OpenAIEmbedder({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'sk-test', LLM_TIMEOUT_MS: timeoutMs, EMBEDDING_DIM: 384, embeddingModel: 'emb-model' });

  test('returns one vector of the configured dim per input, batched by 256, in order', async () => {
    const texts = Array.from({ length: 600 }, (_, i) => `memory number ${i}`);
    const vectors = await embedder().embed(texts);
    expect(vectors).toHaveLength(600);
    for (const v of vectors) expect(v).toHaveLength(384);

    const bodies = stub.requests.map((r) => r.body as { input: string[]; dimensions: number; model: string });
    expect(bodies.map((b) => b.input.length)).toEqual([256, 256, 88]);
    expect(bodies.every((b) => b.dimensions === 384 && b.model === 'emb-model')).toBe(true);
    // Order survives batching: the stub's vectors are a deterministic function of the text.
    const again = await embedder().embed([texts[599], texts[0]]);
    expect(again).toEqual([vectors[599], vectors[0]]);
  });

  test('a wrong dimension is rejected (non-retryable)', async () => {
    stub.enqueueEmbedding({ dim: 128 });
    const failure = await failureOf(() => embedder().embed(['hello']));
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe(MODEL_FAILURE_TYPES.badEmbedding);
    expect(failure.message).toContain('dimension 128, expected EMBEDDING_DIM=384');
  });

  test('a wrong number of vectors is rejected', async () => {
    stub.enqueueEmbedding({ vectors: [new Array(384).fill(0.1)] });
    const failure = await failureOf(() => embedder().embed(['a', 'b']));
    expect(failure.message).toContain('returned 1 vectors for 2 inputs');
  });

  test('429 from the embeddings endpoint is retryable', async () => {
    stub.enqueueEmbedding({ status: 429 });
    const failure = await failureOf(() => embedder().embed(['hello']));
    expect(failure.nonRetryable).toBeFalsy();
    expect(failure.type).toBe(MODEL_FAILURE_TYPES.unavailable);
  });

  test('a hanging embeddings call times out (retryable)', async () => {
    stub.enqueueEmbedding({ hang: true });
    const failure = await failureOf(() => embedder(HANG_TIMEOUT_MS).embed(['hello']));
    expect(failure.nonRetryable).toBeFalsy();
    expect(failure.message).toBe(`model endpoint ${stub.url} timed out after ${HANG_TIMEOUT_MS} ms`);
  });

  test('no input → no call', async () => {
    expect(await embedder().embed([])).toEqual([]);
    expect(stub.requests).toHaveLength(0);
  });
});
