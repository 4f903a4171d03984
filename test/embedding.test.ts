import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_EMBEDDING_MODEL_DIR } from '../core/config/config.js';
import { cosine } from '../core/embedding/hashing.js';
import { createNameEmbedder } from '../core/embedding/index.js';
import { EmbeddingModelMissing, OnnxEmbedder } from '../core/embedding/onnxModel.js';
import { entryArgs } from './support/compiledSources.js';
import { ROOT } from './support/paths.js';

const modelDir = process.env.EMBEDDING_MODEL_DIR ?? DEFAULT_EMBEDDING_MODEL_DIR;

// First 8 dimensions of each vector, as sentence-transformers 6.2.0 encodes these
// texts with all-MiniLM-L6-v2 (normalize_embeddings=True), recorded once.
const REFERENCE: Array<[string, number[]]> = [
  ['The cat sits on the mat', [0.13489, -0.03206, -0.02034, 0.0359, -0.02833, 0.0415, 0.03316, 0.03661]],
  ['I started a new job at Google last week!', [-0.13066, -0.09365, 0.07266, -0.01118, 0.01389, -0.05266, -0.02143, -0.03347]],
  ['Where does she work now?', [0.01172, -0.10431, 0.02754, 0.03616, -0.01754, 0.05064, -0.00653, -0.06386]],
  ['x', [-0.09791, -0.064, -0.02318, -0.0462, 0.0217, -0.02849, 0.15485, 0.0544]],
  // 30 repetitions: longer than the model's 256 tokens, so it is truncated as sentence-transformers does.
  ['Kate said her trip to Paris in 2023 was amazing, '.repeat(30), [-0.00362, -0.10103, 0.07487, -0.01898, 0.00171, 0.02154, 0.01164, -0.01155]],
];

async function expectMeaningfulNeighbours(embedder: OnnxEmbedder): Promise<void> {
  const [job, question, cat, kitten] = await embedder.embed([
    'I started a new job at Google last week',
    'Where does she work now?',
    'The cat sits on the mat',
    'A kitten is resting on a rug',
  ]);
  expect(cosine(cat, kitten)).toBeGreaterThan(0.5);
  expect(cosine(job, question)).toBeGreaterThan(cosine(cat, question) + 0.15);
}

describe('local embedding model (all-MiniLM-L6-v2, ONNX)', () => {
  const embedder = new OnnxEmbedder(modelDir, 'all-MiniLM-L6-v2', 384);

  it('reproduces sentence-transformers, truncation included, within float error', async () => {
    const vectors = await embedder.embed(REFERENCE.map(([text]) => text));
    vectors.forEach((vector, i) => {
      expect(vector).toHaveLength(384);
      REFERENCE[i][1].forEach((expected, d) => expect(vector[d]).toBeCloseTo(expected, 4));
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    });
  });

  it('gives the same vector for a text alone or inside a padded batch', async () => {
    const [alone] = await embedder.embed(['Where does she work now?']);
    const batch = await embedder.embed(['hi', 'Where does she work now?', 'A much longer sentence that forces the shorter ones in its batch to be padded.']);
    expect(cosine(alone, batch[1])).toBeGreaterThan(0.99999);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('places paraphrases near each other and unrelated text far away', async () => {
    await expectMeaningfulNeighbours(embedder);
  });

  it('warms up once per thread: the model loaded and run before the first text, and the thread replaced after close', async () => {
    const fresh = new OnnxEmbedder(modelDir, 'all-MiniLM-L6-v2-int8', 384);
    try {
      const warming = fresh.warmUp();
      expect(fresh.warmUp()).toBe(warming);
      await expect(warming).resolves.toBeUndefined();
      const [vector] = await fresh.embed(['Where does she work now?']);
      expect(vector).toHaveLength(384);
      await fresh.close();
      // A closed embedder's next warm-up starts a new thread rather than reporting the old one's.
      const again = fresh.warmUp();
      expect(again).not.toBe(warming);
      await expect(again).resolves.toBeUndefined();
    } finally {
      await fresh.close();
    }
  });

  it('closes while texts are being embedded without taking the process down: what waited fails, the process exits 0', async () => {
    // Terminating the thread mid-run aborted the process (SIGABRT from onnxruntime's completion): an API or worker
    // stopped under load exited 134. Several delays, so the close lands in different runs of the queue.
    for (const delayMs of [2, 15, 40]) {
      const child = spawn(process.execPath, [...entryArgs('test/fixtures/process/embedderClosedMidRun.ts'), String(delayMs)], {
        cwd: ROOT,
        env: { ...process.env, EMBEDDING_MODEL_DIR: modelDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      expect(stderr).not.toContain('terminate called');
      expect(code).toBe(0);
      const counts = JSON.parse(stdout.trim()) as Record<string, number>;
      // Every call settled: embedded before the close, or failed by it.
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(40);
      expect(Object.keys(counts).every((k) => k === 'embedded' || k === 'local embedding model closed')).toBe(true);
    }
  }, 60_000);

  it('names the command that builds a missing model', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'mnemo-no-model-'));
    try {
      expect(() => new OnnxEmbedder(empty, 'all-MiniLM-L6-v2', 384)).toThrow(EmbeddingModelMissing);
      expect(() => new OnnxEmbedder(empty, 'all-MiniLM-L6-v2', 384)).toThrow(/npm run setup:model/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('local embedding model, int8 (the default)', () => {
  const fp32 = new OnnxEmbedder(modelDir, 'all-MiniLM-L6-v2', 384);
  const int8 = new OnnxEmbedder(modelDir, 'all-MiniLM-L6-v2-int8', 384);

  it('stays close to the full-precision model and keeps its neighbourhoods', async () => {
    const texts = REFERENCE.map(([text]) => text);
    const [exact, quantized] = await Promise.all([fp32.embed(texts), int8.embed(texts)]);
    quantized.forEach((vector, i) => {
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
      expect(cosine(vector, exact[i])).toBeGreaterThan(0.9);
    });
    await expectMeaningfulNeighbours(int8);
  });

  it('refuses a model name it has no file for', () => {
    expect(() => new OnnxEmbedder(modelDir, 'all-mpnet-base-v2', 384)).toThrow(/one of: all-MiniLM-L6-v2-int8, all-MiniLM-L6-v2/);
  });
});

describe('entity-name embedder', () => {
  it('compares spelling: an inflected or longer form stays close, a different city does not', async () => {
    const [caroline, carolines, google, googleInc, paris, london] = await createNameEmbedder().embed(['Caroline', 'Carolines', 'Google', 'Google Inc', 'Paris', 'London']);
    expect(cosine(caroline, carolines)).toBeGreaterThan(0.8);
    expect(cosine(google, googleInc)).toBeGreaterThan(0.6);
    expect(cosine(paris, london)).toBeLessThan(0.2);
  });
});
