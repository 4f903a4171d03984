import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import ort from 'onnxruntime-node';
import { z } from 'zod';
import { LOCAL_EMBEDDING_MODELS, type LocalEmbeddingModel } from '../config/config.js';
import type { EmbeddingProvider } from '../extraction/types.js';

/** What scripts/model/build_minilm_onnx.py writes beside model.onnx. */
const modelManifest = z.object({ name: z.string(), dim: z.number().int(), max_seq_length: z.number().int().positive() });

export class EmbeddingModelMissing extends Error {
  constructor(readonly dir: string) {
    super(`No embedding model in ${dir}: run \`npm run setup:model\` (or set EMBEDDING_PROVIDER=hash to use feature hashing)`);
    this.name = 'EmbeddingModelMissing';
  }
}

/**
 * The local model's variants, by the name stored beside every vector. The int8
 * twin (weights quantized by onnxruntime) is the default: 2.6x faster per query
 * on this CPU, and recall@10 on REALTALK did not move (57.0 fp32, 57.2 int8).
 */
const LOCAL_MODEL_FILES: Record<LocalEmbeddingModel, string> = {
  'all-MiniLM-L6-v2-int8': 'model.int8.onnx',
  'all-MiniLM-L6-v2': 'model.onnx',
};

function isLocalModel(model: string): model is LocalEmbeddingModel {
  return (LOCAL_EMBEDDING_MODELS as readonly string[]).includes(model);
}

export function embeddingModelPresent(dir: string, model: string = LOCAL_EMBEDDING_MODELS[0]): boolean {
  return isLocalModel(model) && existsSync(path.join(dir, LOCAL_MODEL_FILES[model])) && existsSync(path.join(dir, 'mnemo-model.json'));
}

function readJson(dir: string, file: string): object {
  return JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as object;
}

/** Texts per forward pass. Measured on chat turns (2 cores): 6 ms/text in batches of 8, 12.5 ms in batches of 32 (bigger matrices, more padding). */
const BATCH_SIZE = 8;

interface Loaded {
  session: ort.InferenceSession;
  tokenizer: Tokenizer;
}

/**
 * `EMBEDDING_PROVIDER=local` (the default): all-MiniLM-L6-v2, a sentence
 * embedding model, run in-process by onnxruntime on the CPU (2-6 ms per
 * text), so the read path still calls no service. One intra-op thread: the API,
 * the worker and Postgres share the cores, and parallel requests already use them.
 */
export class OnnxEmbedder implements EmbeddingProvider {
  readonly dim: number;
  private readonly file: string;
  private readonly maxTokens: number;
  private loading: Promise<Loaded> | null = null;

  constructor(
    private readonly dir: string,
    readonly model: string,
    dim: number,
  ) {
    if (!isLocalModel(model)) throw new Error(`Unknown local embedding model ${model}; one of: ${LOCAL_EMBEDDING_MODELS.join(', ')}`);
    if (!embeddingModelPresent(dir, model)) throw new EmbeddingModelMissing(dir);
    const manifest = modelManifest.parse(readJson(dir, 'mnemo-model.json'));
    if (manifest.dim !== dim) throw new Error(`The model in ${dir} makes ${manifest.dim}-wide vectors; the schema needs ${dim}`);
    this.dim = dim;
    this.file = LOCAL_MODEL_FILES[model];
    this.maxTokens = manifest.max_seq_length;
  }

  private load(): Promise<Loaded> {
    this.loading ??= (async () => {
      const tokenizer = new Tokenizer(readJson(this.dir, 'tokenizer.json'), readJson(this.dir, 'tokenizer_config.json'));
      const session = await ort.InferenceSession.create(path.join(this.dir, this.file), {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
      });
      return { session, tokenizer };
    })();
    return this.loading;
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const loaded = await this.load();
    const encoded = texts.map((text, index) => ({ index, ids: this.tokenize(loaded, text) }));
    // Similar lengths share a batch, so little of each batch is padding.
    encoded.sort((a, b) => a.ids.length - b.ids.length);
    const out = new Array<number[]>(texts.length);
    for (let start = 0; start < encoded.length; start += BATCH_SIZE) {
      const batch = encoded.slice(start, start + BATCH_SIZE);
      const vectors = await this.run(loaded, batch.map((b) => b.ids));
      batch.forEach((b, i) => (out[b.index] = vectors[i]));
    }
    return out;
  }

  private tokenize(loaded: Loaded, text: string): number[] {
    const ids = loaded.tokenizer.encode(text).ids;
    if (ids.length <= this.maxTokens) return ids;
    // Keep [CLS] … [SEP]: truncate the middle tokens, as sentence-transformers does.
    return [...ids.slice(0, this.maxTokens - 1), ids[ids.length - 1]];
  }

  private async run(loaded: Loaded, batch: number[][]): Promise<number[][]> {
    const width = Math.max(...batch.map((ids) => ids.length));
    const inputIds = new BigInt64Array(batch.length * width);
    const mask = new BigInt64Array(batch.length * width);
    batch.forEach((ids, row) => {
      for (let j = 0; j < ids.length; j++) {
        inputIds[row * width + j] = BigInt(ids[j]);
        mask[row * width + j] = 1n;
      }
    });
    const result = await loaded.session.run({
      input_ids: new ort.Tensor('int64', inputIds, [batch.length, width]),
      attention_mask: new ort.Tensor('int64', mask, [batch.length, width]),
    });
    const data = result.sentence_embedding.data as Float32Array;
    return batch.map((_, row) => Array.from(data.subarray(row * this.dim, (row + 1) * this.dim)));
  }
}
