// The floor benchmark's worker (bench/temporal-floor.ts starts it as a process of its own, so its CPU is read
// apart from the starter's): the floor workflow and its one activity, with the same worker settings as Mnemo's
// (workers/runtime.ts). Stops on SIGTERM.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { FloorPayload } from './workflow.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const address = process.env.FLOOR_TEMPORAL_ADDRESS;
const taskQueue = process.env.FLOOR_TASK_QUEUE ?? 'temporal-floor';
if (!address) throw new Error('FLOOR_TEMPORAL_ADDRESS is required');

const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
Runtime.install({ logger: quiet });
const workflowBundle = await bundleWorkflowCode({ workflowsPath: path.join(HERE, 'workflow.ts'), logger: quiet });
const connection = await NativeConnection.connect({ address });
const worker = await Worker.create({
  connection,
  taskQueue,
  workflowBundle,
  activities: { floorStep: async (input: FloorPayload): Promise<FloorPayload> => ({ step: input.step + 1, filler: input.filler }) },
  maxConcurrentActivityTaskExecutions: 50,
  maxConcurrentLocalActivityExecutions: 50,
  workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 },
  nonStickyToStickyPollRatio: 0.6,
});
process.once('SIGTERM', () => worker.shutdown());
process.send?.('ready');
await worker.run();
await connection.close();
