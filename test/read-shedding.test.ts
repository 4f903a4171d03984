import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import express from 'express';
import { EventLoopLag } from '../api/eventLoopLag.js';
import { errorHandler } from '../api/errors.js';
import { shedReadsWhileLagging } from '../api/overload.js';
import { loadConfig } from '../core/config/config.js';
import { Metrics } from '../core/metrics/metrics.js';

describe('EventLoopLag', () => {
  // Its clock and timers are the test's: on the real clock, a CI machine that descheduled this process for 70 ms
  // made an idle event loop look late.
  it('reports how late the event loop ran, and nothing once it runs on time again', () => {
    jest.useFakeTimers();
    let now = 0;
    const lag = new EventLoopLag(10, () => now);
    /** One 10 ms tick of the interval, run `lateMs` after it was due (a thread kept busy that long). */
    const tick = (lateMs: number) => {
      now += 10 + lateMs;
      jest.advanceTimersByTime(10);
    };
    try {
      for (let i = 0; i < 5; i++) tick(0);
      expect(lag.currentMs).toBeLessThan(50);
      tick(150);
      expect(lag.currentMs).toBeGreaterThan(100);
      for (let i = 0; i < 6; i++) tick(0);
      expect(lag.currentMs).toBeLessThan(50);
    } finally {
      lag.stop();
      jest.useRealTimers();
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
