import { z } from 'zod';
import type { BurstResult } from './contracts.js';

/** How long a burst waits for the task's webhook. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** What the webhook may answer: progress (a note, or a note and a percentage) and `done`. Other keys are ignored. */
export const webhookAnswerSchema = z.object({
  progress: z
    .union([
      z.string().min(1).max(4000).transform((note) => ({ note })),
      z.object({ note: z.string().min(1).max(4000).optional(), percent: z.number().min(0).max(100).optional() }),
    ])
    .optional(),
  done: z.boolean().optional(),
});

/** The body each burst POSTs to the webhook. */
export interface BurstPayload {
  task_id: string;
  burst: number;
  intent: string;
  progress: unknown;
  working_memory: unknown;
}

type WebhookOutcome = Omit<BurstResult, 'finishedAt'>;

const failed = (error: string, httpStatus: number | null = null): WebhookOutcome => ({ outcome: 'failed', httpStatus, error, answer: null });

/**
 * POSTs one burst to the webhook. Every way it can go wrong (connection
 * refused, timeout, non-2xx, an answer that is not the expected JSON) is a
 * failed burst, reported rather than thrown: it costs budget, not a retry.
 * An empty 2xx body is a plain success.
 */
export async function callTaskWebhook(url: string, payload: BurstPayload, timeoutMs = WEBHOOK_TIMEOUT_MS): Promise<WebhookOutcome> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    text = await response.text();
  } catch (err) {
    return failed(describeFetchError(err, timeoutMs));
  }
  if (!response.ok) return failed(`webhook answered HTTP ${response.status}`, response.status);
  if (text.trim() === '') return { outcome: 'ok', httpStatus: response.status, error: null, answer: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return failed('webhook answer is not JSON', response.status);
  }
  const answer = webhookAnswerSchema.safeParse(json);
  if (!answer.success) {
    const issues = answer.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    return failed(`invalid webhook answer: ${issues}`, response.status);
  }
  return { outcome: 'ok', httpStatus: response.status, error: null, answer: answer.data };
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `webhook did not answer within ${timeoutMs} ms`;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `webhook unreachable: ${cause ?? e?.message ?? String(err)}`;
}
