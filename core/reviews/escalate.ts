import { writeAudit } from '../audit/auditLog.js';
import { withTransaction } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { getReview, type ReviewView } from './read.js';

const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Flags an open item nobody decided in time (`escalated_at`) with an audit
 * row, once: a retry or a second run finds it flagged and writes nothing.
 */
export async function markEscalated(
  deps: Pick<Deps, 'pool' | 'now'>,
  input: { reviewId: string; workflowId?: string; runId?: string },
): Promise<{ escalated: boolean; review: ReviewView | null }> {
  const now = deps.now();
  return withTransaction(deps.pool, async (tx) => {
    const { rows } = await tx.query<{ namespace: string }>(
      `UPDATE review_item SET escalated_at = $2, updated_at = now() WHERE id = $1 AND status = 'open' AND escalated_at IS NULL RETURNING namespace`,
      [input.reviewId, now],
    );
    const review = await getReview(tx, input.reviewId, null);
    if (!rows[0] || !review) return { escalated: false, review };
    await writeAudit(tx, { namespace: rows[0].namespace, actor: 'system:review', workflowId: input.workflowId, runId: input.runId, episodeId: review.episode_id }, [
      { action: 'review.escalated', targetType: 'review_item', targetId: input.reviewId, before: { escalated_at: null }, after: { escalated_at: now.toISOString(), kind: review.kind } },
    ]);
    return { escalated: true, review };
  });
}

/** The body POSTed to REVIEW_WEBHOOK_URL when an item escalates. */
export function escalationWebhookBody(review: ReviewView): { event: 'review.escalated'; review: ReviewView } {
  return { event: 'review.escalated', review };
}

/**
 * POSTs the escalated item to REVIEW_WEBHOOK_URL (when set). Throws on a
 * network error or a non-2xx answer so the activity retries.
 */
export async function notifyEscalation(deps: Pick<Deps, 'pool' | 'config'>, reviewId: string): Promise<{ sent: boolean; status: number | null }> {
  const url = deps.config.REVIEW_WEBHOOK_URL;
  if (!url) return { sent: false, status: null };
  const review = await getReview(deps.pool, reviewId, null);
  if (!review) return { sent: false, status: null };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(escalationWebhookBody(review)),
    signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
  });
  await res.arrayBuffer().catch(() => undefined);
  if (!res.ok) throw new Error(`review webhook answered ${res.status}`);
  return { sent: true, status: res.status };
}
