import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { countTokens } from 'gpt-tokenizer';
import { z } from 'zod';
import type { Logger } from '../../logger.js';
import { addUsage, NO_USAGE, type ModelUsage } from '../types.js';
import { callModel, type ModelTarget } from './client.js';
import { malformedOutputFailure } from './errors.js';

export const MAX_REPAIR_ATTEMPTS = 2;

/** Longest error text quoted back to the model or into a failure message. */
const MAX_PROBLEM_CHARS = 1_500;

export interface ModelContext extends ModelTarget {
  client: OpenAI;
  model: string;
  logger: Logger;
}

export interface StructuredRequest<T> {
  stage: string;
  messages: ChatCompletionMessageParam[];
  schema: z.ZodType<T>;
  /** Checks the schema cannot express (e.g. ids must come from the prompt); returns a problem or null. */
  check?: (value: T) => string | null;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Local models often wrap JSON in a Markdown fence even when asked not to. */
function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return fenced ? fenced[1] : text.trim();
}

function parseAnswer<T>(content: string | null, finishReason: string, request: StructuredRequest<T>): Parsed<T> {
  if (content === null || content.trim() === '') return { ok: false, problem: 'the answer was empty' };
  let json: unknown;
  try {
    json = JSON.parse(stripFence(content));
  } catch (error) {
    const cut = finishReason === 'length' ? ' (the answer was cut off: finish_reason=length)' : '';
    return { ok: false, problem: `not valid JSON${cut}: ${(error as Error).message}` };
  }
  const result = request.schema.safeParse(json);
  if (!result.success) return { ok: false, problem: `does not match the required schema: ${z.prettifyError(result.error)}` };
  const problem = request.check?.(result.data) ?? null;
  return problem ? { ok: false, problem } : { ok: true, value: result.data };
}

function usageOf(completion: OpenAI.Chat.Completions.ChatCompletion, messages: ChatCompletionMessageParam[], content: string): ModelUsage {
  if (completion.usage) {
    return { modelCalls: 1, tokensIn: completion.usage.prompt_tokens, tokensOut: completion.usage.completion_tokens };
  }
  // Some local servers omit `usage`; an estimate beats reporting zero tokens.
  const prompt = messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
  return { modelCalls: 1, tokensIn: countTokens(prompt), tokensOut: countTokens(content) };
}

/**
 * One JSON-mode chat call, validated with zod. A malformed answer gets up to
 * MAX_REPAIR_ATTEMPTS follow-ups in the same conversation (the bad answer and
 * the error are sent back); then a non-retryable MalformedModelOutput failure,
 * because re-running the same prompt would most likely fail the same way.
 * Transport errors are classified for Temporal's retry policy.
 */
export async function callStructured<T>(ctx: ModelContext, request: StructuredRequest<T>): Promise<{ value: T; usage: ModelUsage }> {
  const messages = [...request.messages];
  let usage = NO_USAGE;
  for (let attempt = 0; ; attempt++) {
    const completion = await callModel(ctx, (signal) =>
      ctx.client.chat.completions.create(
        { model: ctx.model, messages, response_format: { type: 'json_object' }, temperature: 0 },
        { signal },
      ),
    );
    const choice = completion.choices[0];
    const content = choice?.message?.content ?? null;
    usage = addUsage(usage, usageOf(completion, messages, content ?? ''));
    const parsed = parseAnswer(content, choice?.finish_reason ?? 'stop', request);
    if (parsed.ok) return { value: parsed.value, usage };

    const problem = truncate(parsed.problem, MAX_PROBLEM_CHARS);
    if (attempt >= MAX_REPAIR_ATTEMPTS) {
      // The details let the activity record what the failed attempt cost.
      throw malformedOutputFailure(MAX_REPAIR_ATTEMPTS, problem, { stage: request.stage, usage });
    }
    ctx.logger.warn({ stage: request.stage, attempt: attempt + 1, problem }, 'model output malformed, asking for a repair');
    messages.push(
      { role: 'assistant', content: truncate(content ?? '', 20_000) },
      {
        role: 'user',
        content: `Your previous answer is invalid: ${problem}\nReply again with only the corrected JSON object, in exactly the format described above.`,
      },
    );
  }
}
