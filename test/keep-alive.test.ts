import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, KEEP_ALIVE_TIMEOUT_MS, listen } from '../core/embedded/lifecycle.js';

/** One GET on `agent`; resolves with whether it went out on a connection an earlier request had opened. */
function get(agent: http.Agent, port: number): Promise<{ status: number; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reusedSocket: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

// The API's server (api/main.ts and npm start both listen through lifecycle.listen) keeps an idle keep-alive
// connection longer than the clients that pool them: Node's 5 s default closed them under clients' feet, and a
// request written as the server closed its socket failed with ECONNRESET.
describe('keep-alive connections of the API server', () => {
  it('stay open past Node’s 5 s default, so a pooled client reuses them instead of racing their close', async () => {
    const server = http.createServer((_req, res) => res.end('{}'));
    await listen(server, 0, '127.0.0.1');
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
      expect(server.headersTimeout).toBeGreaterThan(KEEP_ALIVE_TIMEOUT_MS);
      expect(await get(agent, port)).toEqual({ status: 200, reusedSocket: false });
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await get(agent, port)).toEqual({ status: 200, reusedSocket: true });
    } finally {
      agent.destroy();
      await closeServer(server);
    }
  });
});
