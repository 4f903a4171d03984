import { readFileSync } from 'node:fs';
import { isPortFree } from '../../core/embedded/ports.js';

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
 * kernel's ephemeral range, which outgoing connections never take. A test that
 * binds a port seconds after choosing it (a server started late on purpose)
 * could otherwise lose it to any process's outgoing connection in between;
 * `freePort()` answers from that range.
 */
export async function portForLater(host = '127.0.0.1'): Promise<number> {
  const high = ephemeralLow();
  const low = Math.max(1024, Math.min(20_000, high - 2_000));
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await isPortFree(port, host)) return port;
  }
  throw new Error(`no free port between ${low} and ${high}`);
}
