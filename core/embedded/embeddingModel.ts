import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/config.js';
import { embeddingModelPresent } from '../embedding/onnxModel.js';
import { privateVenvDir } from './privateVenv.js';

const INSTALL_SCRIPT = fileURLToPath(new URL('../../scripts/model/install-model.sh', import.meta.url));

type ModelConfig = Pick<Config, 'EMBEDDING_PROVIDER' | 'embeddingModel' | 'embeddingModelDir'>;

/** Whether the configured provider needs the local model and it is not built yet. */
export function embeddingModelMissing(config: ModelConfig): boolean {
  return config.EMBEDDING_PROVIDER === 'local' && !embeddingModelPresent(config.embeddingModelDir, config.embeddingModel);
}

/**
 * Builds the local embedding model on first use (scripts/model/install-model.sh,
 * in the private venv), the same way for `npm start` and `npm test`: one cache
 * per user (EMBEDDING_MODEL_DIR). Returns whether it built anything.
 */
export function ensureEmbeddingModel(config: ModelConfig): boolean {
  if (!embeddingModelMissing(config)) return false;
  const built = spawnSync('bash', [INSTALL_SCRIPT], {
    stdio: 'inherit',
    env: { ...process.env, EMBEDDING_MODEL_DIR: config.embeddingModelDir, MNEMO_MODEL_VENV: privateVenvDir() },
  });
  if (built.status !== 0) throw new Error('building the local embedding model failed (see above); set EMBEDDING_PROVIDER=hash to run without it');
  return true;
}
