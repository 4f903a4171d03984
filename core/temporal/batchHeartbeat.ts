import * as z from 'zod/mini';

/**
 * Batch workflows (erasure, the dream) run one short activity per batch that heartbeats as it starts: a batch whose
 * worker stays silent this long runs again on another worker. Their input may shorten it (a crash test sets 4 s).
 */
export const DEFAULT_BATCH_HEARTBEAT_TIMEOUT_SECONDS = 15;

export const batchHeartbeatTimeoutSeconds = z.optional(z.number().check(z.int(), z.gte(1), z.lte(600)));
