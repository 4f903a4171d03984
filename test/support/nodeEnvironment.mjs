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

export default class NodeEnvironmentWithHostTypedArrays extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of TYPED_ARRAYS) this.global[name] = globalThis[name];
  }
}
