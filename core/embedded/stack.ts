import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config.js';
import type { Logger } from '../logger.js';
import { lockDataDir } from './processLock.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './postgres.js';
import { ensureTemporalCli } from './temporalCli.js';
import { startTemporalDevServer, type TemporalDevServer } from './temporalServer.js';

export interface EmbeddedServices {
  /** The config with DATABASE_URL and TEMPORAL_ADDRESS pointing at what runs. */
  config: Config & { DATABASE_URL: string; TEMPORAL_ADDRESS: string };
  postgres?: EmbeddedPostgres;
  temporal?: TemporalDevServer;
  /** Stops what this started (Temporal first, then PGlite so its files are closed last). */
  stop(): Promise<void>;
}

/**
 * The embedded default: PGlite when DATABASE_URL is unset, a Temporal dev
 * server when TEMPORAL_ADDRESS is unset, both under DATA_DIR. They start in
 * parallel; anything started is stopped again if the other fails.
 */
export async function startEmbeddedServices(config: Config, logger: Logger): Promise<EmbeddedServices> {
  const needPostgres = !config.DATABASE_URL;
  const needTemporal = !config.TEMPORAL_ADDRESS;
  let lock: { release(): void } | undefined;
  if (needPostgres || needTemporal) {
    mkdirSync(config.dataDir, { recursive: true });
    lock = lockDataDir(path.join(config.dataDir, 'mnemo.pid'));
  }

  const postgresStart = needPostgres ? startEmbeddedPostgres(config.dataDir, '127.0.0.1') : Promise.resolve(undefined);
  const temporalStart = needTemporal
    ? ensureTemporalCli(config.TEMPORAL_CLI_PATH, (msg) => logger.info(msg)).then((cli) =>
        startTemporalDevServer({
          cli,
          dir: path.join(config.dataDir, 'temporal'),
          namespace: config.TEMPORAL_NAMESPACE,
          uiPort: config.TEMPORAL_UI_PORT,
          nice: config.WORKER_NICE,
          onLog: (line) => logger.warn({ component: 'temporal-dev-server' }, line),
        }),
      )
    : Promise.resolve(undefined);
  const [pgResult, temporalResult] = await Promise.allSettled([postgresStart, temporalStart]);
  const postgres = pgResult.status === 'fulfilled' ? pgResult.value : undefined;
  const temporal = temporalResult.status === 'fulfilled' ? temporalResult.value : undefined;

  const stop = async () => {
    try {
      await temporal?.stop();
    } finally {
      try {
        await postgres?.stop();
      } finally {
        lock?.release();
      }
    }
  };

  const failed = [pgResult, temporalResult].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stop().catch(() => undefined);
    throw failed.reason;
  }

  const DATABASE_URL = config.DATABASE_URL ?? postgres?.url;
  const TEMPORAL_ADDRESS = config.TEMPORAL_ADDRESS ?? temporal?.address;
  if (!DATABASE_URL || !TEMPORAL_ADDRESS) throw new Error('embedded services did not start');
  if (postgres) logger.info({ dataDir: path.join(config.dataDir, 'pg') }, 'embedded PGlite is serving');
  if (temporal) logger.info({ address: temporal.address, ui: temporal.uiUrl }, 'Temporal dev server is serving');
  return { config: { ...config, DATABASE_URL, TEMPORAL_ADDRESS }, postgres, temporal, stop };
}
