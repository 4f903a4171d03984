import { z } from 'zod';

/**
 * Messages between `npm start` and the worker process it runs beside its API
 * (`workers/child.ts`), over the IPC channel of `child_process.fork`.
 */

/** Parent to child: the services are up and migrated; connect to these. */
export const workerStartMessage = z.object({
  type: z.literal('start'),
  DATABASE_URL: z.string().min(1),
  TEMPORAL_ADDRESS: z.string().min(1),
});
export type WorkerStartMessage = z.infer<typeof workerStartMessage>;

/** Child to parent: polling its task queue, or could not start (the child exits after saying so). */
export const workerReport = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('failed'), message: z.string() }),
]);
export type WorkerReport = z.infer<typeof workerReport>;
