import { pino, type Logger } from 'pino';
import type { Config } from './config/config.js';

export type { Logger };

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level: config.LOG_LEVEL, base: { service: 'mnemo', ...bindings } });
}
