import type { Server } from 'node:http';
import { ConfigError, type Config } from '../config/config.js';
import { StartupError } from './errors.js';

export { StartupError };
import type { Logger } from '../logger.js';

/** What an entry point prints when it cannot start: the message of expected errors, the stack of bugs. */
export function describeStartupFailure(err: unknown): string {
  if (err instanceof StartupError || err instanceof ConfigError) return err.message;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** Production entry points connect to existing services only: both URLs are required. */
export function requireExternalServices(config: Config, command: string): Config & { DATABASE_URL: string; TEMPORAL_ADDRESS: string } {
  const missing = (['DATABASE_URL', 'TEMPORAL_ADDRESS'] as const).filter((name) => !config[name]);
  if (missing.length) {
    throw new StartupError(
      `${command} needs ${missing.join(' and ')} (a PostgreSQL 15+ with pgvector and a Temporal server); ` +
        'use `npm start` for the embedded all-in-one default',
    );
  }
  return config as Config & { DATABASE_URL: string; TEMPORAL_ADDRESS: string };
}

/**
 * How long after the first signal a repeat counts as the same request. Ctrl-C
 * on `npm start` reaches this process twice within milliseconds: the terminal
 * signals the whole foreground process group, and npm forwards the SIGINT it
 * received too. Taken as "stop now", that double delivery skipped the clean
 * shutdown (PGlite's close included) on every Ctrl-C.
 */
export const REPEATED_SIGNAL_GRACE_MS = 1_000;

/**
 * Runs `shutdown` once on SIGINT/SIGTERM, then exits 0 (1 if it failed). A
 * second signal while shutting down, later than REPEATED_SIGNAL_GRACE_MS after
 * the first, exits at once.
 */
export function onShutdownSignal(logger: Logger, shutdown: () => Promise<void>): void {
  let stoppingSince: number | null = null;
  const handle = (signal: NodeJS.Signals) => {
    if (stoppingSince !== null) {
      if (performance.now() - stoppingSince < REPEATED_SIGNAL_GRACE_MS) {
        logger.debug({ signal }, 'signal repeated within the grace period: still shutting down cleanly');
        return;
      }
      logger.warn({ signal }, 'second signal: exiting without a clean shutdown');
      process.exit(1);
    }
    stoppingSince = performance.now();
    logger.info({ signal }, 'shutting down');
    shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}

/**
 * How long an idle keep-alive connection stays open. Node's 5 s default races
 * with clients that keep connections longer (Node's own http.Agent, most
 * pooled HTTP clients, load balancers at 60 s): a request written to a socket
 * the server is closing fails with ECONNRESET, before the server ever sees it
 * (bench:write at 500 writes/s: 4 to 50 such failures a run). Longer than
 * those clients' idle timeouts, the client always closes first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Listens on host:port; rejects with a clear message when the port is taken. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // A request's headers must be allowed at least as long as the connection they arrive on may idle.
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? new StartupError(`PORT ${port} on ${host} is already in use: set PORT to a free port`) : err);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeIdleConnections();
  });
}
