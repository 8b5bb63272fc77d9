/**
 * Wasm Policies (`spec.wasm`): the bundle's bytes from `bundleBase64` or the ConfigMap key `configMapRef` names (in
 * the Policy's namespace, read through the declarative source), loaded with @open-policy-agent/opa-wasm
 * (rego/wasm), and decided by the same contract as Rego: the `deny`, `warn` and `allow` entrypoints of the package
 * `spec.wasm.entrypoint` belongs to.
 */
import { createHash } from 'node:crypto';
import type { PolicyResource } from '../../api/index.js';
import { readBundle, WasmPolicy } from '../../rego/wasm/index.js';
import type { DeclarativeSource } from '../source/index.js';

/** A wasm policy as a plan holds it; structured-cloned to the isolation workers. */
export interface WasmModule {
  /** `<policy>.wasm`: the name its decisions carry. */
  name: string;
  /** The package whose `deny`, `warn` and `allow` entrypoints decide, e.g. `steward/pii`. */
  package: string;
  bytes: Uint8Array;
  /** sha256 of `bytes` (hex): the key of the loaded instance. */
  sha256: string;
  priority: number;
  action: 'block' | 'warn' | 'log';
  /** Whether the bundle may read `input.normalized` (its string constants name it). */
  readsNormalized: boolean;
}

/** Why a wasm Policy cannot be loaded: the field to fix, and what is wrong with it. */
export interface WasmProblem {
  field: string;
  message: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DECISION_RULES = ['deny', 'warn', 'allow'];

/** The bundle's bytes, or why there are none. */
export function wasmBundle(doc: PolicyResource, source: DeclarativeSource): { bytes: Uint8Array } | WasmProblem {
  const wasm = doc.spec.wasm;
  if (!wasm) return { field: 'spec.wasm', message: 'absent' };
  if (wasm.bundleBase64 !== undefined) {
    const bytes = decodeBase64(wasm.bundleBase64);
    return bytes ? { bytes } : { field: 'spec.wasm.bundleBase64', message: 'not base64' };
  }
  const ref = wasm.configMapRef;
  if (!ref) return { field: 'spec.wasm', message: 'needs bundleBase64 or configMapRef' };
  const namespace = doc.metadata.namespace ?? 'default';
  const field = 'spec.wasm.configMapRef';
  if (!source.configMap) return { field, message: 'this source reads no ConfigMaps' };
  const cm = source.configMap(namespace, ref.name);
  if (!cm) return { field, message: `ConfigMap ${namespace}/${ref.name} not found` };
  const binary = cm.binaryData[ref.key];
  // NB: data values are text: a bundle there is base64 text, as in bundleBase64.
  const text = binary ?? cm.data[ref.key];
  if (text === undefined)
    return { field, message: `ConfigMap ${namespace}/${ref.name} has no key ${ref.key} in binaryData or data` };
  const bytes = decodeBase64(text);
  if (!bytes)
    return {
      field,
      message: `ConfigMap ${namespace}/${ref.name} key ${ref.key} is not base64 (${binary !== undefined ? 'binaryData' : 'data'})`,
    };
  return { bytes };
}

/** What a compile of the Policy depends on beyond its spec: the version of its ConfigMap, when it names one. */
export function bundleVersion(doc: PolicyResource, source: DeclarativeSource): string | undefined {
  const ref = doc.spec.wasm?.configMapRef;
  if (!ref) return undefined;
  return source.configMap?.(doc.metadata.namespace ?? 'default', ref.name)?.version ?? '(absent)';
}

/** A bundle loaded, and whether it may read `input.normalized`. */
export interface LoadedBundle {
  policy: WasmPolicy;
  readsNormalized: boolean;
}

/** Loaded bundles by content (sha256), least recently used out first: unchanged bundles are not loaded again. */
export class WasmCache {
  private readonly loaded = new Map<string, LoadedBundle>();

  constructor(private readonly maxEntries = 64) {}

  /** Throws BundleFormatError, or WebAssembly's errors, for bytes that are no loadable bundle. */
  get(sha256: string, bytes: Uint8Array): LoadedBundle {
    const hit = this.loaded.get(sha256);
    if (hit) {
      this.loaded.delete(sha256);
      this.loaded.set(sha256, hit);
      return hit;
    }
    const policy = WasmPolicy.loadSync(bytes);
    // NB: like the Rego test (plan.ts), a superset: OPA keeps a module's string constants, paths included, as text.
    const wasm = readBundle(bytes).wasm;
    const readsNormalized = Buffer.from(wasm.buffer, wasm.byteOffset, wasm.byteLength).includes('normalized');
    if (this.loaded.size >= this.maxEntries) this.loaded.delete(this.loaded.keys().next().value!);
    const loaded = { policy, readsNormalized };
    this.loaded.set(sha256, loaded);
    return loaded;
  }
}

/** Loads the bundle and checks its entrypoints against `spec.wasm.entrypoint` and the decision contract. */
export function wasmModule(
  doc: PolicyResource,
  bytes: Uint8Array,
  cache: WasmCache,
): { module: WasmModule } | WasmProblem {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let loaded: LoadedBundle;
  try {
    loaded = cache.get(sha256, bytes);
  } catch (err) {
    return { field: 'spec.wasm', message: `the bundle cannot be loaded: ${(err as Error).message}` };
  }
  const { policy } = loaded;
  const entrypoint = normalizeEntrypoint(doc.spec.wasm!.entrypoint);
  const has = [...policy.entrypoints.keys()];
  if (!policy.entrypoints.has(entrypoint))
    return {
      field: 'spec.wasm.entrypoint',
      message: `${entrypoint} is not an entrypoint of the bundle (it has: ${has.join(', ') || 'none'})`,
    };
  const parts = entrypoint.split('/');
  const pkg = parts.length > 1 && DECISION_RULES.includes(parts.at(-1)!) ? parts.slice(0, -1).join('/') : entrypoint;
  if (!DECISION_RULES.some((r) => policy.entrypoints.has(`${pkg}/${r}`)))
    return {
      field: 'spec.wasm.entrypoint',
      message: `the bundle has no ${pkg}/deny, ${pkg}/warn or ${pkg}/allow entrypoint (it has: ${has.join(', ')})`,
    };
  return {
    module: {
      name: `${doc.metadata.name}.wasm`,
      package: pkg,
      bytes,
      sha256,
      priority: doc.spec.priority,
      action: doc.spec.action === 'redact' ? 'block' : doc.spec.action,
      readsNormalized: loaded.readsNormalized,
    },
  };
}

/**
 * Why a wasm Policy's `bundleBase64` would not load at start, as the runtimes report it (`spec.wasm.entrypoint: ...`);
 * undefined when it loads, and for a bundle in a ConfigMap (read from the cluster or the manifest folders at start).
 */
export function wasmBundleError(doc: PolicyResource): string | undefined {
  if (doc.spec.wasm?.bundleBase64 === undefined) return undefined;
  const bytes = decodeBase64(doc.spec.wasm.bundleBase64);
  if (!bytes) return 'spec.wasm.bundleBase64: not base64';
  const loaded = wasmModule(doc, bytes, new WasmCache(1));
  return 'module' in loaded ? undefined : `${loaded.field}: ${loaded.message}`;
}

/** `data.steward.pii.deny`, `steward.pii.deny` → `steward/pii/deny`, as OPA names entrypoints. */
function normalizeEntrypoint(e: string): string {
  return e.replace(/^data[./]/, '').replace(/\./g, '/');
}

function decodeBase64(text: string): Uint8Array | undefined {
  const b64 = text.replace(/\s+/g, '');
  if (b64 === '' || b64.length % 4 !== 0 || !BASE64.test(b64)) return undefined;
  return new Uint8Array(Buffer.from(b64, 'base64'));
}
