/**
 * The local model's worker thread: tokenizes and runs all-MiniLM-L6-v2 with
 * onnxruntime, whose `run` is synchronous, off the caller's event loop (the
 * API's and the worker's main threads were 10–20 % busy in it). Requests run
 * one at a time, each in batches of its own texts: batching different callers'
 * texts together padded short texts to long ones, and extraction ran 40 % slower.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';
import ort from 'onnxruntime-node';

export interface OnnxWorkerData {
  dir: string;
  file: string;
  dim: number;
  maxTokens: number;
}
export interface EmbedRequest {
  id: number;
  texts: string[];
}
/** Asks the thread to finish the run in progress, release the model and exit (see OnnxEmbedder.close). */
export interface CloseRequest {
  close: true;
}
export type EmbedReply = { id: number; vectors: Float32Array[] } | { id: number; error: string };

/** Texts per forward pass. Measured on chat turns (2 cores): 6 ms/text in batches of 8, 12.5 ms in batches of 32 (bigger matrices, more padding). */
const BATCH_SIZE = 8;

const { dir, file, dim, maxTokens } = workerData as OnnxWorkerData;
const port = parentPort!;
const readJson = (name: string) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as object;
const tokenizer = new Tokenizer(readJson('tokenizer.json'), readJson('tokenizer_config.json'));
const session = ort.InferenceSession.create(path.join(dir, file), { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });

function tokenize(text: string): number[] {
  const ids = tokenizer.encode(text).ids;
  if (ids.length <= maxTokens) return ids;
  // Keep [CLS] … [SEP]: truncate the middle tokens, as sentence-transformers does.
  return [...ids.slice(0, maxTokens - 1), ids[ids.length - 1]];
}

async function forward(batch: number[][]): Promise<Float32Array[]> {
  const width = Math.max(...batch.map((ids) => ids.length));
  const inputIds = new BigInt64Array(batch.length * width);
  const mask = new BigInt64Array(batch.length * width);
  batch.forEach((ids, row) => {
    for (let j = 0; j < ids.length; j++) {
      inputIds[row * width + j] = BigInt(ids[j]);
      mask[row * width + j] = 1n;
    }
  });
  const result = await (await session).run({
    input_ids: new ort.Tensor('int64', inputIds, [batch.length, width]),
    attention_mask: new ort.Tensor('int64', mask, [batch.length, width]),
  });
  const data = result.sentence_embedding.data as Float32Array;
  return batch.map((_, row) => data.slice(row * dim, (row + 1) * dim));
}

async function embed(texts: string[]): Promise<Float32Array[]> {
  // Similar lengths share a batch, so little of each batch is padding.
  const items = texts.map((text, index) => ({ index, ids: tokenize(text) })).sort((a, b) => a.ids.length - b.ids.length);
  const out = new Array<Float32Array>(texts.length);
  for (let start = 0; start < items.length; start += BATCH_SIZE) {
    const batch = items.slice(start, start + BATCH_SIZE);
    const vectors = await forward(batch.map((b) => b.ids));
    batch.forEach((b, i) => (out[b.index] = vectors[i]));
  }
  return out;
}

const queue: EmbedRequest[] = [];
let draining: Promise<void> | null = null;

async function drain(): Promise<void> {
  for (let request = queue.shift(); request; request = queue.shift()) {
    try {
      const vectors = await embed(request.texts);
      port.postMessage({ id: request.id, vectors } satisfies EmbedReply, vectors.map((v) => v.buffer as ArrayBuffer));
    } catch (err) {
      port.postMessage({ id: request.id, error: (err as Error).message } satisfies EmbedReply);
    }
  }
  draining = null;
}

/**
 * Ends the thread once no run is in progress. Terminated in the middle of one,
 * onnxruntime's completion reached a torn-down thread and aborted the whole
 * process (SIGABRT: "terminate called after throwing an instance of
 * 'Napi::Error'"), so an API or worker stopped under load exited 134.
 */
async function close(): Promise<void> {
  queue.length = 0; // the caller has already failed what it was waiting for
  await draining;
  await (await session.catch(() => null))?.release();
  port.close(); // nothing left to run: the thread exits
}

port.on('message', (message: EmbedRequest | CloseRequest) => {
  if ('close' in message) {
    void close();
    return;
  }
  queue.push(message);
  draining ??= drain();
});
