import { createServer } from 'node:net';

/** Whether `port` can be bound on `host` right now. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port the OS considers free on `host` (another process may still take it before we bind it). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** `preferred` when it is free, else any free port. */
export async function preferredOrFreePort(preferred: number, host = '127.0.0.1'): Promise<number> {
  return (await isPortFree(preferred, host)) ? preferred : freePort(host);
}
