import OpenAI from 'openai';
import type { Config } from '../../config/config.js';
import { classifyModelError } from './errors.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * The SDK's own timeout is only a backstop: `callModel` enforces LLM_TIMEOUT_MS
 * with its own AbortSignal, because the SDK recognizes its timeout by the
 * abort error's name, which is lost when the fetch runs in another realm (jest
 * VM modules), and the failure would then read "connection error" instead of
 * "timed out".
 */
const SDK_TIMEOUT_GRACE_MS = 1_000;

/** Local OpenAI-compatible servers (Ollama, vLLM, LM Studio) ignore the key but the SDK requires one. */
const PLACEHOLDER_API_KEY = 'not-needed';

export type OpenAIClientConfig = Pick<Config, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'LLM_TIMEOUT_MS'>;

/**
 * One SDK client per provider. `maxRetries: 0` on purpose: retries belong to
 * Temporal's activity retry policy, so every attempt is its own `stage_run`
 * row an operator can see. Every option is passed explicitly because only
 * `loadConfig` may read the environment (the SDK would read OPENAI_* itself).
 */
export function createOpenAIClient(config: OpenAIClientConfig): OpenAI {
  if (!config.OPENAI_API_KEY && !config.OPENAI_BASE_URL) {
    throw new Error('OPENAI_API_KEY is required for the OpenAI endpoint (or set OPENAI_BASE_URL to a local one)');
  }
  return new OpenAI({
    apiKey: config.OPENAI_API_KEY ?? PLACEHOLDER_API_KEY,
    baseURL: config.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL,
    organization: null,
    project: null,
    timeout: config.LLM_TIMEOUT_MS + SDK_TIMEOUT_GRACE_MS,
    maxRetries: 0,
  });
}

export interface ModelTarget {
  /** For error messages only. */
  endpoint: string;
  timeoutMs: number;
}

/**
 * Runs one SDK request under a deadline of `timeoutMs` and turns any failure
 * into the Temporal failure the activity should throw (see classifyModelError).
 */
export async function callModel<T>(target: ModelTarget, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), target.timeoutMs);
  try {
    return await request(controller.signal);
  } catch (error) {
    throw classifyModelError(error, { ...target, timedOut: controller.signal.aborted });
  } finally {
    clearTimeout(timer);
  }
}
