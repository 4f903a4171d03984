import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../core/embedded/ports.js';
import { findTemporalCli } from '../../core/embedded/temporalCli.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../core/embedded/temporalServer.js';

/**
 * The embedded default's Temporal dev server, which a test can stop and start
 * again on the same port and database file (state survives), to play
 * "Temporal is down".
 */
export class RestartableTemporal {
  private server: TemporalDevServer | null = null;
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-temporal-'));

  private constructor(
    readonly port: number,
    private readonly uiPort: number,
  ) {}

  static async create(): Promise<RestartableTemporal> {
    const server = new RestartableTemporal(await freePort(), await freePort());
    await server.start();
    return server;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    // The CLI globalSetup found or installed (the same lookup as `npm start`).
    const cli = process.env.MNEMO_TEST_TEMPORAL_CLI ?? findTemporalCli();
    // A start right after a stop can find the port or the database file not yet released by the old process
    // (seen once on a loaded CI machine: the server exited during start-up); a few tries, seconds apart.
    for (let attempt = 1; ; attempt++) {
      try {
        this.server = await startTemporalDevServer({ cli, dir: this.dir, namespace: 'default', port: this.port, uiPort: this.uiPort });
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
        await new Promise((resolve) => setTimeout(resolve, 2_000 * attempt));
      }
    }
    if (this.server.address !== this.address) throw new Error(`Temporal came back on ${this.server.address}, not ${this.address}`);
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = null;
  }
}
