import { warmUpReadPath } from '../api/warmUp.js';
import type { EmbeddingProvider } from '../core/extraction/types.js';
import type { Logger } from '../core/logger.js';

/** A logger that keeps what it was asked to log. */
function recordingLogger(): { logger: Logger; lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> } {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => void lines.push({ level, msg, fields });
  return { logger: { debug: at('debug'), warn: at('warn') } as unknown as Logger, lines };
}

function provider(warmUp?: () => Promise<void>): EmbeddingProvider {
  return { model: 'test', dim: 3, embed: async (texts) => texts.map(() => [0, 0, 1]), ...(warmUp ? { warmUp } : {}) };
}

describe('warming the read path before the API listens', () => {
  it('waits for the embedder to warm up', async () => {
    const { logger, lines } = recordingLogger();
    let warmed = false;
    await warmUpReadPath(
      provider(async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        warmed = true;
      }),
      logger,
    );
    expect(warmed).toBe(true);
    expect(lines.map((l) => l.level)).toEqual(['debug']);
  });

  it('logs a model that fails to load and lets the API start anyway', async () => {
    const { logger, lines } = recordingLogger();
    await expect(warmUpReadPath(provider(() => Promise.reject(new Error('onnxruntime: no such file'))), logger)).resolves.toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBe('warn');
    expect((lines[0].fields.err as Error).message).toBe('onnxruntime: no such file');
  });

  it('does nothing for a provider with nothing to load (hash, OpenAI)', async () => {
    const { logger, lines } = recordingLogger();
    await warmUpReadPath(provider(), logger);
    expect(lines).toEqual([]);
  });
});
