import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { TestEnvironment } from 'jest-environment-node';

/**
 * jest's node environment gives each test file its own realm, so a typed array
 * made by a native addon (onnxruntime's output tensors) fails the sandbox's
 * `instanceof Float32Array`. Sharing the host's typed-array constructors keeps
 * native code and test code on the same classes.
 */
const TYPED_ARRAYS = [
  'ArrayBuffer', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
];

let pgliteArtifacts;

/**
 * PGlite's compiled WebAssembly modules and its file-system bundle (core/embedded/pgliteThread.ts's `artifacts`),
 * made once per Jest worker process for every test file it runs: a test file's own modules are loaded anew for each
 * file, and a thread that compiles its own costs about 1.3 s of CPU more per test database (test/support/db.ts).
 * Made here, in the host realm, so no test file's realm is kept alive by them.
 */
function sharedPgliteArtifacts() {
  pgliteArtifacts ??= (async () => {
    const dist = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const read = (name) => readFile(path.join(dist, name));
    const [pglite, initdb, fsBundle] = await Promise.all([read('pglite.wasm'), read('initdb.wasm'), read('pglite.data')]);
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all([WebAssembly.compile(pglite), WebAssembly.compile(initdb)]);
    return { pgliteWasmModule, initdbWasmModule, fsBundle: new Uint8Array(fsBundle) };
  })();
  return pgliteArtifacts;
}

export default class NodeEnvironmentWithHostTypedArrays extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of TYPED_ARRAYS) this.global[name] = globalThis[name];
    this.global.mnemoSharedPgliteArtifacts = sharedPgliteArtifacts;
  }
}
