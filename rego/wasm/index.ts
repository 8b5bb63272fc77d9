/** Precompiled OPA wasm policies behind Steward's decision interface. */
export { WasmPolicy } from './policy.js';
export { readBundle, type WasmBundle } from './bundle.js';
export { BundleFormatError, readTar } from './tar.js';
