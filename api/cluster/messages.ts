import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { z } from 'zod';

/**
 * What an API process and the primary of `API_PROCESSES` say to each other over
 * node:cluster's IPC channel. Only `/metrics` needs it: the answering process
 * asks the primary for the sum over all processes, and the primary asks each
 * process for its own families. Parsed with zod on arrival like any boundary.
 */
export const MESSAGE_PREFIX = 'mnemo:';

export const clusterMetricsRequest = z.object({ type: z.literal('mnemo:cluster-metrics-request'), id: z.number().int() });
export const clusterMetricsReply = z.object({
  type: z.literal('mnemo:cluster-metrics-reply'),
  id: z.number().int(),
  text: z.string().optional(),
  error: z.string().optional(),
});
export const processMetricsRequest = z.object({ type: z.literal('mnemo:process-metrics-request'), id: z.number().int() });
export const processMetricsReply = z.object({
  type: z.literal('mnemo:process-metrics-reply'),
  id: z.number().int(),
  /** prom-client's `Registry.getMetricsAsJSON()` of the process's own registry. */
  metrics: z.array(
    z.custom<MetricObjectWithValues<MetricValue<string>>>(
      (v) => typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string' && Array.isArray((v as { values?: unknown }).values),
    ),
  ),
});

export type ClusterMetricsRequest = z.infer<typeof clusterMetricsRequest>;
export type ClusterMetricsReply = z.infer<typeof clusterMetricsReply>;
export type ProcessMetricsRequest = z.infer<typeof processMetricsRequest>;
export type ProcessMetricsReply = z.infer<typeof processMetricsReply>;

/** How long the primary waits for the API processes' families before summing those that came. */
export const PROCESS_METRICS_TIMEOUT_MS = 2_000;
/** How long an API process waits for the primary's sum before answering with its own: longer than the primary waits. */
export const CLUSTER_METRICS_TIMEOUT_MS = PROCESS_METRICS_TIMEOUT_MS + 1_000;
