// Container healthchecks (docker-compose.yml): `api` asks /readyz; `worker`
// asks Temporal whether this container's worker polls the task queue.
import os from 'node:os';
import { Connection } from '@temporalio/client';
import { loadConfig } from '../core/config/config.js';

const config = loadConfig();

async function api(): Promise<boolean> {
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST;
  const res = await fetch(`http://${host}:${config.PORT}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return res.ok;
}

async function worker(): Promise<boolean> {
  if (!config.TEMPORAL_ADDRESS) return false;
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS, connectTimeout: 5_000 });
  try {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: config.TEMPORAL_TASK_QUEUE },
      taskQueueType: 1, // workflow tasks
    });
    // The SDK's default worker identity is `<pid>@<hostname>`; the container's hostname is its id.
    return (pollers ?? []).some((p) => p.identity?.endsWith(`@${os.hostname()}`));
  } finally {
    await connection.close();
  }
}

const mode = process.argv[2];
const check = mode === 'api' ? api : mode === 'worker' ? worker : undefined;
if (!check) {
  console.error('usage: tsx scripts/healthcheck.ts api|worker');
  process.exit(2);
}
check().then(
  (ok) => process.exit(ok ? 0 : 1),
  (err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  },
);
