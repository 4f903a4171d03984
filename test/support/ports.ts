import { readFileSync } from 'node:fs';
import { isPortFree } from '../../core/embedded/ports.js';

/** The kernel's range for the local ports of outgoing connections (Linux), else its usual default. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low > 0 && high >= low) return [low, high];
  } catch {
    // Not Linux: the IANA range most kernels use.
  }
  return [49152, 65535];
}

/**
 * A free port that stays free while nothing listens on it: one below the
 * kernel's ephemeral range, which outgoing connections never take. A test that
 * binds a port seconds after choosing it (a server started late on purpose)
 * could otherwise lose it to any process's outgoing connection in between;
 * `freePort()` answers from that range.
 */
export async function portForLater(host = '127.0.0.1'): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const low = Math.max(1024, Math.min(20_000, ephemeralLow - 2_000));
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (ephemeralLow - low));
    if (await isPortFree(port, host)) return port;
  }
  throw new Error(`no free port between ${low} and ${ephemeralLow}`);
}
