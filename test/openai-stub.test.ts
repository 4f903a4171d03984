import OpenAI from 'openai';
import { pino } from 'pino';
import { OpenAIProvider } from '../core/extraction/openai/index.js';
import type {
  EntityCandidate,
  EpisodeText,
  ExtractionProvider,
  FactCandidate,
  ResolutionDecision,
  ResolutionItem,
  ResolvedEntityRef,
} from '../core/extraction/types.js';
import { startOpenAIStub, type OpenAIStub } from './support/openaiStub.js';
import { parseMnemoPrompt, providerResponder } from './support/openaiStubResponder.js';

/** Records what it was asked and answers from it, so the round trip through HTTP can be checked. */
class EchoProvider implements ExtractionProvider {
  readonly name = 'heuristic' as const;
  readonly usesNetwork = false;
  readonly seen: unknown[] = [];

  async extractEntities(episode: EpisodeText) {
    this.seen.push(episode);
    const entities: EntityCandidate[] = [{ name: episode.speaker ?? 'nobody', type: 'person', aliases: [] }];
    return { entities, usage: { modelCalls: 0, tokensIn: 0, tokensOut: 0 } };
  }

  async judgeEntities(episode: EpisodeText, items: ResolutionItem[]) {
    this.seen.push(items);
    const decisions: ResolutionDecision[] = items.map((i) => ({ index: i.index, match_id: i.nearest[0]?.id ?? null }));
    return { decisions, usage: { modelCalls: 0, tokensIn: 0, tokensOut: 0 } };
  }

  async extractFacts(episode: EpisodeText, entities: ResolvedEntityRef[]) {
    this.seen.push(entities);
    const facts: FactCandidate[] = entities.map((e) => ({
      subject: e.name,
      predicate: 'is_a',
      predicate_raw: 'is',
      family: 'other',
      object: null,
      value: e.type,
      fact_text: `${e.name} is a ${e.type}.`,
      memory_kind: 'semantic',
      importance: 0.5,
      confidence: 0.7,
      negated: false,
      time_expression: null,
    }));
    return { facts, usage: { modelCalls: 0, tokensIn: 0, tokensOut: 0 } };
  }
}

let stub: OpenAIStub;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  stub = await startOpenAIStub();
});
afterEach(() => stub.reset());
afterAll(async () => {
  await stub.close();
});

const episode: EpisodeText = {
  text: 'Line one with "quotes" and """ triple quotes.\nLine two: ünïcödé 🚀.',
  speaker: 'Giulia',
  occurredAt: '2026-05-18T09:00:00.000Z',
};

test('providerResponder answers every stage from the prompt, over real HTTP', async () => {
  const echo = new EchoProvider();
  stub.setResponder(providerResponder(echo));
  const model = new OpenAIProvider({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: undefined, LLM_MODEL: 'm', LLM_TIMEOUT_MS: 5_000 }, logger);

  const entities = await model.extractEntities(episode);
  expect(entities.entities).toEqual([{ name: 'Giulia', type: 'person', aliases: [] }]);
  expect(echo.seen[0]).toEqual(episode);

  const items: ResolutionItem[] = [
    { index: 3, candidate: { name: 'Giulia', type: 'person', aliases: ['G'] }, nearest: [{ id: 'x1', name: 'Giulia R.', type: 'person', aliases: [], similarity: 0.9 }] },
  ];
  const judged = await model.judgeEntities(episode, items);
  expect(judged.decisions).toEqual([{ index: 3, match_id: 'x1' }]);
  expect(echo.seen[1]).toEqual(items);

  const refs: ResolvedEntityRef[] = [{ name: 'Giulia', type: 'person', aliases: ['G'] }, { name: 'Turin', type: 'place', aliases: [] }];
  const facts = await model.extractFacts(episode, refs);
  expect(facts.facts.map((f) => f.fact_text)).toEqual(['Giulia is a person.', 'Turin is a place.']);
  expect(echo.seen[2]).toEqual(refs);
  expect(facts.usage.modelCalls).toBe(1);
});

test('parseMnemoPrompt names the stage', async () => {
  stub.setResponder(() => '{"entities": []}');
  const model = new OpenAIProvider({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: undefined, LLM_MODEL: 'm', LLM_TIMEOUT_MS: 5_000 }, logger);
  await model.extractEntities({ ...episode, speaker: null });
  const parsed = parseMnemoPrompt(stub.chatRequests()[0]);
  expect(parsed).toEqual({ stage: 'entity-extract', episode: { ...episode, speaker: 'User' } });
});

test('the stub speaks the wire format the official SDK expects, including errors and base64 embeddings', async () => {
  const client = new OpenAI({ baseURL: stub.url, apiKey: 'k', maxRetries: 0 });
  stub.enqueue({ content: 'hello', usage: { prompt_tokens: 3, completion_tokens: 1 } }, { status: 418, message: 'teapot' });

  const completion = await client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] });
  expect(completion.choices[0].message.content).toBe('hello');
  expect(completion.usage).toEqual({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });

  await expect(client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
    status: 418,
    message: expect.stringContaining('teapot'),
  });

  // Without encoding_format the SDK asks for base64 and decodes it itself.
  const embedded = await client.embeddings.create({ model: 'e', input: ['a', 'b'], dimensions: 16 });
  expect(embedded.data.map((d) => d.embedding.length)).toEqual([16, 16]);

  // The queue is empty and there is no responder: a clear, non-retryable 400.
  await expect(client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
    status: 400,
    message: expect.stringContaining('no scripted step and no responder'),
  });
  expect(stub.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions', '/v1/embeddings', '/v1/chat/completions']);
  expect(stub.pendingSteps()).toBe(0);
});
