import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { EventLoopLag } from '../api/eventLoopLag.js';
import { errorHandler } from '../api/errors.js';
import { shedReadsWhileLagging } from '../api/overload.js';
import { loadConfig } from '../core/config/config.js';
import { Metrics } from '../core/metrics/metrics.js';

/** Keeps this thread busy for `ms`: what an API process whose CPU is the bottleneck looks like to its timers. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning
  }
}

describe('EventLoopLag', () => {
  it('reports how late the event loop ran, and nothing once it runs on time again', async () => {
    const lag = new EventLoopLag(10);
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(lag.currentMs).toBeLessThan(50);
      busy(150);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(lag.currentMs).toBeGreaterThan(100);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(lag.currentMs).toBeLessThan(50);
    } finally {
      lag.stop();
    }
  });
});

describe('reads shed while the event loop lags', () => {
  let server: Server;
  let base: string;
  const lag = { currentMs: 0 };
  const metrics = new Metrics();

  beforeAll(async () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://unused@127.0.0.1/unused', READ_MAX_EVENT_LOOP_LAG_MS: '100' } as NodeJS.ProcessEnv);
    const app = express();
    app.use('/v1', shedReadsWhileLagging({ config, metrics }, lag), (_req, res) => void res.json({ served: true }));
    app.use(errorHandler());
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const search = () => fetch(`${base}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"x"}' });
  const write = () => fetch(`${base}/v1/memories`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"content":"x"}' });

  it('serves reads and writes while the loop is on time', async () => {
    lag.currentMs = 100;
    expect((await search()).status).toBe(200);
    expect((await fetch(`${base}/v1/facts`)).status).toBe(200);
    expect((await write()).status).toBe(200);
  });

  it('answers reads 503 with Retry-After while it lags, counts them, and lets writes through', async () => {
    lag.currentMs = 101;
    const before = (await metrics.refusals.get()).values.find((v) => v.labels.kind === 'read')?.value ?? 0;
    const refused = await search();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: { code: 'unavailable' } });
    expect((await fetch(`${base}/v1/facts`)).status).toBe(503);
    expect((await write()).status).toBe(200);
    const after = (await metrics.refusals.get()).values.find((v) => v.labels.kind === 'read')?.value ?? 0;
    expect(after - before).toBe(2);
  });
});
