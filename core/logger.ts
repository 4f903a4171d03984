import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config/config.js';

export type { Logger };

/**
 * Fields that hold secrets, wherever a log call puts them (a request's headers,
 * the config, an SDK's options): their values are replaced by "[redacted]".
 * Nothing logs them today; this keeps a future `logger.info({ config })` or
 * `{ headers }` from leaking a bearer key or OPENAI_API_KEY.
 */
export const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'headers.cookie',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.cookie',
  'apiKey',
  '*.apiKey',
  'OPENAI_API_KEY',
  '*.OPENAI_API_KEY',
  'MNEMO_API_KEY',
  '*.MNEMO_API_KEY',
  'WEB_APP_BOOTSTRAP_SECRET',
  '*.WEB_APP_BOOTSTRAP_SECRET',
  'DATABASE_URL',
  '*.DATABASE_URL',
];

/** The process's logger; `destination` (default stdout) lets tests capture the output. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, bindings: Record<string, unknown> = {}, destination?: DestinationStream): Logger {
  const options = { level: config.LOG_LEVEL, base: { service: 'mnemo', ...bindings }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
