// A stack whose every part is a process of this run's own and can be hurt:
// a private PostgreSQL cluster, a Temporal dev server on a database file, the
// API and a worker (as `npm run api` / `npm run worker` run them). Used by the
// chaos run and the soak.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../../core/db/migrate.js';
import { portForLater } from '../../core/embedded/ports.js';
import { findTemporalCli } from '../../core/embedded/temporalCli.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../core/embedded/temporalServer.js';
import { startPrivatePostgres, type PrivatePostgres } from './privatePostgres.js';
import { answers, ServiceProcess } from './serviceProcess.js';

export const STACK_KEY = 'chaos-admin-key-0123456789abcdef';

/** A Temporal dev server that can be stopped and started again on the same port and database file. */
export class RestartableTemporalServer {
  private server: TemporalDevServer | null = null;
  private constructor(
    private readonly cli: string,
    private readonly dir: string,
    readonly port: number,
    private readonly uiPort: number,
  ) {
    // The dev server runs detached (its own process group): never leave it behind when the run dies.
    process.once('exit', () => {
      if (this.server?.pid) process.kill(this.server.pid, 'SIGKILL');
    });
  }

  static async start(): Promise<RestartableTemporalServer> {
    const server = new RestartableTemporalServer(findTemporalCli(), mkdtempSync(path.join(os.tmpdir(), 'mnemo-chaos-temporal-')), await portForLater(), await portForLater());
    await server.start();
    return server;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.server?.pid;
  }

  async start(): Promise<void> {
    this.server = await startTemporalDevServer({ cli: this.cli, dir: this.dir, namespace: 'default', port: this.port, uiPort: this.uiPort });
    if (this.server.address !== this.address) throw new Error(`Temporal came back on ${this.server.address}, not ${this.address}`);
  }

  async stop(): Promise<void> {
    await this.server?.stop(5_000);
    this.server = null;
  }

  /** Stops it for good and removes its database file. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface FaultStack {
  pg: PrivatePostgres;
  temporal: RestartableTemporalServer;
  databaseUrl: string;
  apiUrl: string;
  api: ServiceProcess;
  worker: ServiceProcess;
  /** Stops API and worker (SIGTERM), keeping PostgreSQL and Temporal. */
  stopServices(): Promise<void>;
  stop(): Promise<void>;
}

export interface FaultStackOptions {
  /** Database created on the private cluster. */
  database: string;
  logDir: string;
  /** Reuse this cluster (a second database beside the first) instead of starting one. */
  pg?: PrivatePostgres;
  env?: Record<string, string>;
}

export async function startFaultStack(options: FaultStackOptions): Promise<FaultStack> {
  const ownPg = !options.pg;
  const pg = options.pg ?? (await startPrivatePostgres());
  let temporal: RestartableTemporalServer | undefined;
  const services: ServiceProcess[] = [];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-chaos-data-'));
  try {
    const databaseUrl = await pg.createDatabase(options.database);
    await migrate(databaseUrl);
    temporal = await RestartableTemporalServer.start();
    const apiPort = await portForLater();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      MNEMO_API_KEY: STACK_KEY,
      LLM_PROVIDER: 'heuristic',
      // Feature hashing: no model to load, so restarts take seconds and the CPU goes to the faults under test.
      EMBEDDING_PROVIDER: 'hash',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      PORT: String(apiPort),
      ...options.env,
    };
    const api = new ServiceProcess({ name: 'api', entry: 'api/main.ts', env, logFile: path.join(options.logDir, `${options.database}-api.log`), ready: answers(`${apiUrl}/healthz`) });
    const worker = new ServiceProcess({ name: 'worker', entry: 'workers/main.ts', env, logFile: path.join(options.logDir, `${options.database}-worker.log`) });
    services.push(api, worker);
    await Promise.all([api.start(), worker.start()]);
    const stopServices = async () => {
      await Promise.all([api.stop(), worker.stop()]);
    };
    return {
      pg,
      temporal,
      databaseUrl,
      apiUrl,
      api,
      worker,
      stopServices,
      async stop() {
        await stopServices();
        await temporal?.close();
        if (ownPg) await pg.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await Promise.all(services.map((s) => s.stop('SIGKILL')));
    await temporal?.close();
    if (ownPg) await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
