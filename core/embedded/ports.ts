import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** The lowest port the kernel gives outgoing connections (Linux), else the IANA range's start most kernels use. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (low > 0) return low;
  } catch {
    // Not Linux.
  }
  return 49152;
}

/**
 * A free port that stays free while nothing listens on it: one below the
 * kernel's ephemeral range, which outgoing connections never take. For a
 * server bound seconds after the port is chosen (started late on purpose), or
 * stopped and started again on it (the chaos run restarts Temporal, PostgreSQL
 * and the API): a port from the ephemeral range, which `freePort()` answers
 * from, can be taken in between as the local end of any process's outgoing
 * connection, and the bind then fails (seen in CI: "bind: address already in
 * use" for the restarted dev server's gRPC port).
 */
export async function portForLater(host = '127.0.0.1'): Promise<number> {
  const high = ephemeralLow();
  const low = Math.max(1024, Math.min(20_000, high - 2_000));
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + randomInt(high - low);
    if (await isPortFree(port, host)) return port;
  }
  throw new Error(`no free port between ${low} and ${high}`);
}
