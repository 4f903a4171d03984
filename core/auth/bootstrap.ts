import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config.js';
import { generateApiKey } from './apiKeys.js';
import { StartupError } from '../embedded/errors.js';

export interface AdminKey {
  key: string;
  /** env: MNEMO_API_KEY; file: reused from DATA_DIR/api-key; generated: new, now stored there. */
  source: 'env' | 'file' | 'generated';
  file?: string;
}

export const API_KEY_FILE = 'api-key';

/**
 * The admin key of the embedded default: MNEMO_API_KEY when set, else the key
 * stored in DATA_DIR/api-key (mode 600), else a new one written there, so the
 * same key works across restarts.
 */
export function ensureAdminKey(config: Pick<Config, 'MNEMO_API_KEY' | 'dataDir'>): AdminKey {
  if (config.MNEMO_API_KEY) return { key: config.MNEMO_API_KEY, source: 'env' };
  const file = path.join(config.dataDir, API_KEY_FILE);
  let stored = '';
  try {
    stored = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (stored.length >= 16) {
    chmodSync(file, 0o600);
    return { key: stored, source: 'file', file };
  }
  if (stored) throw new StartupError(`${file} holds a key shorter than 16 characters: delete the file to get a new key`);
  mkdirSync(config.dataDir, { recursive: true });
  const key = generateApiKey();
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, source: 'generated', file };
}
