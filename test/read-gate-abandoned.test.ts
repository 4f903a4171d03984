import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { overloadGuard } from '../api/overload.js';
import { loadConfig } from '../core/config/config.js';
import type { Pool } from '../core/db/pool.js';
import { Metrics } from '../core/metrics/metrics.js';
import { eventually } from './support/eventually.js';

/** Waits (5 s at most) until `check` holds: the server sees requests and closes a moment after the client acts. */
const until = (check: () => boolean) => eventually(async () => check(), Boolean, 'the read gate to settle', 5_000, 5);

// Clients give up on reads (a timeout, a cancelled tool call, a load generator stopping): one that left while
// waiting for its turn used to keep that turn for good once it came, and when the gate's capacity had leaked so,
// every later read was refused until the API restarted.
describe('the read gate, when a client leaves', () => {
  let server: Server;
  let base: string;
  let guard: ReturnType<typeof overloadGuard>;
  const held: Response[] = [];

  beforeAll(async () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://unused@127.0.0.1/unused', READ_CONCURRENCY: '1', READ_QUEUE_TIMEOUT_MS: '300' } as NodeJS.ProcessEnv);
    // Reads never touch the pool here: only writes ask it for the extraction backlog.
    guard = overloadGuard({ pool: {} as Pool, config, metrics: new Metrics() });
    const app = express();
    // Every admitted read is held open until the test answers it, so the one slot stays taken meanwhile.
    app.use('/v1', guard, (_req, res) => void held.push(res));
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
  });

  it('gives the turn of a read abandoned in line to the next one, not to nobody', async () => {
    const first = fetch(`${base}/v1/facts`);
    await until(() => held.length === 1);

    const leaving = new AbortController();
    const abandoned = fetch(`${base}/v1/entities`, { signal: leaving.signal }).catch((err: Error) => err.name);
    await until(() => guard.reads.waiting === 1);
    leaving.abort();
    expect(await abandoned).toBe('AbortError');
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server sees the connection close

    held[0].status(200).json({ n: 1 });
    expect((await first).status).toBe(200);
    await until(() => guard.reads.inProgress === 0 && guard.reads.waiting === 0);
    expect(held).toHaveLength(1); // the abandoned read never ran

    const next = fetch(`${base}/v1/facts`);
    await until(() => held.length === 2 || guard.reads.refused > 0);
    expect(guard.reads.refused).toBe(0);
    held[1].status(200).json({ n: 2 });
    expect((await next).status).toBe(200);
    await until(() => guard.reads.inProgress === 0);
  });
});
