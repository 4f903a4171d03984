/**
 * A real OpenAI-compatible HTTP server for tests and benchmarks (no jest
 * dependency, importable from a tsx script).
 *
 *   const stub = await startOpenAIStub();
 *   // config: OPENAI_BASE_URL = stub.url, LLM_PROVIDER = 'openai'
 *   stub.enqueue({ status: 429 }, { status: 500 }, { hang: true }, { content: '{"entities":[]}' });
 *   stub.setResponder((request) => JSON.stringify({ entities: [] })); // when the queue is empty
 *   stub.fixedLatencyMs = 200; // every call takes at least 200 ms
 *   ...
 *   await stub.close();
 *
 * Routes (OpenAI wire format): POST /v1/chat/completions, POST /v1/embeddings,
 * GET /v1/models. Chat calls consume `enqueue`d steps in order, then fall back
 * to the responder; with neither, they answer 400 (a non-retryable rejection,
 * so a forgotten script fails fast with a clear message). Embedding calls
 * consume `enqueueEmbedding` steps, then answer deterministic vectors (the
 * local hashing embedder) of the requested `dimensions` (default 384).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HashingEmbedder } from '../../core/embedding/hashing.js';

export interface StubChatMessage {
  role: string;
  content: unknown;
}

/** The parts of a chat request body tests usually look at; the rest is kept as sent. */
export interface StubChatRequest {
  model: string;
  messages: StubChatMessage[];
  response_format?: { type: string };
  [key: string]: unknown;
}

export interface StubEmbeddingRequest {
  model: string;
  input: string | string[];
  dimensions?: number;
  encoding_format?: 'float' | 'base64';
  [key: string]: unknown;
}

export type StubRecordedRequest =
  | { path: '/v1/chat/completions'; body: StubChatRequest; receivedAt: number }
  | { path: '/v1/embeddings'; body: StubEmbeddingRequest; receivedAt: number };

export interface StubUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** Steps shared by both routes. `delayMs` (optional on every step) waits before answering. */
export type StubCommonStep =
  /** Answer an OpenAI-style error with this HTTP status. */
  | { status: number; message?: string; delayMs?: number }
  /** Never answer: the client's own timeout has to fire. */
  | { hang: true }
  /** Wait, then answer as if the queue were empty (responder / default vectors). */
  | { delayMs: number };

export type StubChatStep =
  | StubCommonStep
  /** Answer with this assistant message content (any string: valid JSON or not). */
  | { content: string; usage?: StubUsage; finishReason?: 'stop' | 'length'; delayMs?: number };

export type StubEmbeddingStep =
  | StubCommonStep
  /** Answer vectors of this width (e.g. a wrong one, to test validation). */
  | { dim: number; delayMs?: number }
  /** Answer exactly these vectors. */
  | { vectors: number[][]; delayMs?: number };

export type StubResponder = (request: StubChatRequest) => string | Promise<string>;

export interface OpenAIStub {
  /** Base URL for the OpenAI SDK / OPENAI_BASE_URL, ending with /v1. */
  readonly url: string;
  /** Every request received, in order (including ones that got a scripted error). */
  readonly requests: StubRecordedRequest[];
  /** Added before every answer; for benchmarks that need a model-like latency. */
  fixedLatencyMs: number;
  enqueue(...steps: StubChatStep[]): void;
  enqueueEmbedding(...steps: StubEmbeddingStep[]): void;
  /** Answers chat calls once the queue is empty; null removes it. */
  setResponder(responder: StubResponder | null): void;
  /** Bodies of the chat requests received so far. */
  chatRequests(): StubChatRequest[];
  /** Steps not consumed yet (chat + embeddings). */
  pendingSteps(): number;
  /** Empties the queues, the request log and the responder; keeps the server and its latency. */
  reset(): void;
  close(): Promise<void>;
}

export interface OpenAIStubOptions {
  fixedLatencyMs?: number;
  responder?: StubResponder;
  /** 0 (default) picks a free port. */
  port?: number;
}

const DEFAULT_EMBEDDING_DIM = 384;

/** A rough token count (4 characters a token) so clients get a plausible `usage`. */
function approxTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function messageText(message: StubChatMessage): string {
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isChatRequest(body: unknown): body is StubChatRequest {
  return isObject(body) && typeof body.model === 'string' && Array.isArray(body.messages);
}

function isEmbeddingRequest(body: unknown): body is StubEmbeddingRequest {
  return isObject(body) && typeof body.model === 'string' && (typeof body.input === 'string' || Array.isArray(body.input));
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

function sendError(res: http.ServerResponse, status: number, message: string): void {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  sendJson(res, status, { error: { message, type, param: null, code: type } });
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

export async function startOpenAIStub(options: OpenAIStubOptions = {}): Promise<OpenAIStub> {
  const chatQueue: StubChatStep[] = [];
  const embeddingQueue: StubEmbeddingStep[] = [];
  const requests: StubRecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let responder: StubResponder | null = options.responder ?? null;
  let completionCounter = 0;

  const sleep = (ms: number) =>
    ms <= 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            resolve();
          }, ms);
          timers.add(timer);
        });

  /** Common handling of a step: returns true when the step already answered (or will never answer). */
  async function applyCommon(step: StubChatStep | StubEmbeddingStep | undefined, res: http.ServerResponse): Promise<boolean> {
    await sleep(stub.fixedLatencyMs + (step && 'delayMs' in step && step.delayMs ? step.delayMs : 0));
    if (step && 'hang' in step) return true;
    if (step && 'status' in step) {
      sendError(res, step.status, step.message ?? `openaiStub: scripted ${step.status}`);
      return true;
    }
    return false;
  }

  async function chat(body: StubChatRequest, res: http.ServerResponse): Promise<void> {
    const step = chatQueue.shift();
    if (await applyCommon(step, res)) return;
    let content: string;
    let usage: StubUsage | undefined;
    let finishReason: 'stop' | 'length' = 'stop';
    if (step && 'content' in step) {
      content = step.content;
      usage = step.usage;
      finishReason = step.finishReason ?? 'stop';
    } else if (responder) {
      content = await responder(body);
    } else {
      sendError(res, 400, 'openaiStub: no scripted step and no responder for this chat request');
      return;
    }
    const promptTokens = approxTokens(body.messages.map(messageText).join('\n'));
    usage ??= { prompt_tokens: promptTokens, completion_tokens: approxTokens(content) };
    completionCounter += 1;
    sendJson(res, 200, {
      id: `chatcmpl-stub-${completionCounter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: finishReason, logprobs: null }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  }

  async function embeddings(body: StubEmbeddingRequest, res: http.ServerResponse): Promise<void> {
    const step = embeddingQueue.shift();
    if (await applyCommon(step, res)) return;
    const inputs = typeof body.input === 'string' ? [body.input] : body.input.map(String);
    let vectors: number[][];
    if (step && 'vectors' in step) {
      vectors = step.vectors;
    } else {
      const dim = step && 'dim' in step ? step.dim : (body.dimensions ?? DEFAULT_EMBEDDING_DIM);
      const embedder = new HashingEmbedder(dim, 'openai-stub');
      vectors = inputs.map((text) => embedder.embedOne(text));
    }
    const encode = (v: number[]) => (body.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v);
    const tokens = approxTokens(inputs.join(' '));
    sendJson(res, 200, {
      object: 'list',
      data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: encode(v) })),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/v1/models') {
        sendJson(res, 200, { object: 'list', data: [{ id: 'stub-model', object: 'model', created: 0, owned_by: 'openai-stub' }] });
        return;
      }
      if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/v1/embeddings')) {
        sendError(res, 404, `openaiStub: no route ${req.method} ${path}`);
        return;
      }
      let body: unknown;
      try {
        body = await readBody(req);
      } catch {
        sendError(res, 400, 'openaiStub: request body is not JSON');
        return;
      }
      if (path === '/v1/chat/completions') {
        if (!isChatRequest(body)) return sendError(res, 400, 'openaiStub: chat request needs model and messages');
        requests.push({ path, body, receivedAt: Date.now() });
        await chat(body, res);
      } else {
        if (!isEmbeddingRequest(body)) return sendError(res, 400, 'openaiStub: embedding request needs model and input');
        requests.push({ path, body, receivedAt: Date.now() });
        await embeddings(body, res);
      }
    })().catch((error: unknown) => sendError(res, 500, `openaiStub: ${(error as Error).message}`));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const stub: OpenAIStub = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    fixedLatencyMs: options.fixedLatencyMs ?? 0,
    enqueue: (...steps) => void chatQueue.push(...steps),
    enqueueEmbedding: (...steps) => void embeddingQueue.push(...steps),
    setResponder: (next) => {
      responder = next;
    },
    chatRequests: () => requests.flatMap((r) => (r.path === '/v1/chat/completions' ? [r.body] : [])),
    pendingSteps: () => chatQueue.length + embeddingQueue.length,
    reset: () => {
      chatQueue.length = 0;
      embeddingQueue.length = 0;
      requests.length = 0;
      responder = null;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // Hanging requests keep their sockets open; close them so `close` returns.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return stub;
}
