import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { LOCAL_EMBEDDING_MODELS, type LocalEmbeddingModel } from '../config/config.js';
import type { EmbeddingProvider } from '../extraction/types.js';
import type { CloseRequest, EmbedReply, EmbedRequest, OnnxWorkerData } from './onnxWorker.js';

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

/**
 * Starts the worker thread. From source (.ts, run through tsx) the thread
 * registers tsx's loader itself before importing its module: loader flags of
 * the parent process do not reach worker threads.
 */
function startWorker(workerData: OnnxWorkerData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./onnxWorker.js', import.meta.url), { workerData });
  // tsx's ESM API (its "import" export; require.resolve would give the CommonJS twin beside it).
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const module = new URL('./onnxWorker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(module)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** A run takes milliseconds; a thread that has not exited after this is stuck and is terminated. */
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * `EMBEDDING_PROVIDER=local` (the default): all-MiniLM-L6-v2, a sentence
 * embedding model, run by onnxruntime on the CPU (2-6 ms per text) in a worker
 * thread (onnxWorker.ts), so the read path still calls no service and the
 * caller's event loop keeps serving requests meanwhile. One intra-op thread:
 * the API, the worker and Postgres share the cores, and parallel requests
 * already use them.
 */
export class OnnxEmbedder implements EmbeddingProvider {
  readonly dim: number;
  private readonly workerData: OnnxWorkerData;
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: number[][]) => void; reject: (e: Error) => void }>();
  private warming: { worker: Worker; done: Promise<void> } | null = null;

  constructor(
    dir: string,
    readonly model: string,
    dim: number,
  ) {
    if (!isLocalModel(model)) throw new Error(`Unknown local embedding model ${model}; one of: ${LOCAL_EMBEDDING_MODELS.join(', ')}`);
    if (!embeddingModelPresent(dir, model)) throw new EmbeddingModelMissing(dir);
    const manifest = modelManifest.parse(readJson(dir, 'mnemo-model.json'));
    if (manifest.dim !== dim) throw new Error(`The model in ${dir} makes ${manifest.dim}-wide vectors; the schema needs ${dim}`);
    this.dim = dim;
    this.workerData = { dir, file: LOCAL_MODEL_FILES[model], dim, maxTokens: manifest.max_seq_length };
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.workerData);
    worker.on('message', (reply: EmbedReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.settled(reply.id);
      if ('error' in reply) waiting.reject(new Error(`local embedding model: ${reply.error}`));
      else waiting.resolve(reply.vectors.map((v) => Array.from(v)));
    });
    const fail = (err: Error) => {
      // A thread closed earlier may exit after its successor started: only the current one's loss fails calls.
      if (this.worker !== worker) return;
      // The thread is gone: fail what it held; the next call starts a new one.
      for (const { reject } of this.pending.values()) reject(err);
      this.pending.clear();
      this.worker = null;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`local embedding model thread exited (code ${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** The thread keeps the process alive only while it owes answers. */
  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
  }

  embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return Promise.resolve([]);
    const worker = this.thread();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts } satisfies EmbedRequest);
    });
  }

  /**
   * Starts the thread, loads the model and runs it once. Done lazily, the first
   * search after a start waited for it: 307-609 ms against 10-31 ms for the next
   * (bench:cold-start's first_reads, npm start). Once per thread: a warmed
   * embedder returns the same promise until its thread is replaced.
   */
  warmUp(): Promise<void> {
    const worker = this.thread();
    if (this.warming?.worker !== worker) this.warming = { worker, done: this.embed(['warm up']).then(() => undefined) };
    return this.warming.done;
  }

  /**
   * Fails what is still waiting and lets the thread finish its run in progress
   * before it exits (onnxWorker.ts's close says why it must not be terminated
   * mid-run); terminated only if it has not exited within CLOSE_TIMEOUT_MS.
   */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    for (const { reject } of this.pending.values()) reject(new Error('local embedding model closed'));
    this.pending.clear();
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Held open until the thread is gone: a process that exited meanwhile would end the thread mid-run too.
    worker.ref();
    worker.postMessage({ close: true } satisfies CloseRequest);
    const stuck = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(stuck);
  }
}
