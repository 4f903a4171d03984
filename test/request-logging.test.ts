import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { pino } from 'pino';
import { installRequestLogging } from '../api/requestLogging.js';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  method?: string;
  url?: string;
  statusCode?: number;
  responseTimeMs?: number;
}

describe('request logging (request ids and access lines)', () => {
  const lines: LogLine[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        chunk
          .toString()
          .split('\n')
          .filter(Boolean)
          .forEach((l) => lines.push(JSON.parse(l) as LogLine));
        done();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const app = express();
    installRequestLogging(app, logger);
    app.get('/healthz', (_req, res) => res.json({ status: 'ok' }));
    app.get('/hello', (req, res) => {
      req.log.info({ greeting: true }, 'handler says hello');
      res.json({ id: req.id });
    });
    app.get('/boom', (_req, res) => res.status(500).json({ error: 'boom' }));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    lines.length = 0;
  });

  const settle = () => new Promise((r) => setTimeout(r, 50));

  it("echoes the caller's x-request-id and binds it to the handler's logger and the access line", async () => {
    const res = await fetch(`${url}/hello?x=1`, { headers: { 'x-request-id': 'caller-id-42' } });
    expect(res.headers.get('x-request-id')).toBe('caller-id-42');
    expect(await res.json()).toEqual({ id: 'caller-id-42' });
    await settle();
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([
      ['handler says hello', 'caller-id-42'],
      ['request completed', 'caller-id-42'],
    ]);
    const access = lines[1];
    expect(access).toMatchObject({ level: 30, method: 'GET', url: '/hello?x=1', statusCode: 200 });
    expect(access.responseTimeMs).toBeGreaterThanOrEqual(0);
  });

  it('makes a fresh id when the caller sends none (or an oversized one)', async () => {
    const a = await fetch(`${url}/hello`);
    const b = await fetch(`${url}/hello`, { headers: { 'x-request-id': 'x'.repeat(201) } });
    const ids = [a.headers.get('x-request-id'), b.headers.get('x-request-id')];
    ids.forEach((id) => expect(id).toMatch(/^[0-9a-f-]{36}$/));
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('logs server errors at error level and leaves health probes out', async () => {
    await fetch(`${url}/boom`);
    await fetch(`${url}/healthz`);
    await settle();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'request completed', statusCode: 500, url: '/boom' });
  });
});
