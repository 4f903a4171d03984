import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import type { Config } from '../config/config.js';

/**
 * A Temporal client whose connection is opened lazily, so the API starts (and
 * keeps acknowledging writes) while Temporal is down; `reconcile` catches up.
 */
export interface TemporalHandle {
  client: Client;
  connection: Connection;
  taskQueue: string;
  close(): Promise<void>;
}

export function createTemporalHandle(
  config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE'>,
  address?: string,
  options: { interceptors?: WorkflowClientInterceptor[] } = {},
): TemporalHandle {
  const target = address ?? config.TEMPORAL_ADDRESS;
  if (!target) throw new Error('TEMPORAL_ADDRESS is not set');
  const connection = Connection.lazy({ address: target });
  // With tracing on (core/telemetry/tracing.ts): a workflow started inside a span carries it in its headers.
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, interceptors: options.interceptors ? { workflow: options.interceptors } : undefined });
  return {
    client,
    connection,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    close: () => connection.close(),
  };
}

/** Runs a Temporal call with a deadline so a down server fails fast instead of hanging a request. */
export function withDeadline<T>(handle: TemporalHandle, ms: number, fn: () => Promise<T>): Promise<T> {
  return handle.connection.withDeadline(Date.now() + ms, fn);
}
