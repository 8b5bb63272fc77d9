/**
 * OPA bundles for the wasm path: a `.tar.gz` with `/.manifest` (wasm entrypoints), the module and
 * `/data.json`, or a bare `.wasm` module.
 */
import { RObject, parseJSON, type Value } from '../value.js';
import { BundleFormatError, gunzip, readTar } from './tar.js';

export interface WasmBundle {
  wasm: Uint8Array;
  /** entrypoints named by the manifest (e.g. `test/allow`); empty for a bare module */
  entrypoints: string[];
  data: Value;
}

function isWasm(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x00 && b[1] === 0x61 && b[2] === 0x73 && b[3] === 0x6d;
}

function isGzip(b: Uint8Array): boolean {
  return b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
}

function file(files: Map<string, Uint8Array>, name: string): Uint8Array | undefined {
  const n = name.startsWith('/') ? name : `/${name}`;
  return files.get(n) ?? files.get(n.slice(1));
}

function json(bytes: Uint8Array, what: string): Value {
  try {
    return parseJSON(Buffer.from(bytes).toString('utf8'));
  } catch (e) {
    throw new BundleFormatError(`${what} is not valid JSON: ${(e as Error).message}`);
  }
}

export function readBundle(bytes: Uint8Array): WasmBundle {
  if (isWasm(bytes)) return { wasm: bytes, entrypoints: [], data: new RObject() };
  if (!isGzip(bytes)) throw new BundleFormatError('not a wasm module or a .tar.gz bundle');
  const files = readTar(gunzip(bytes));
  const manifestBytes = file(files, '.manifest');
  let modulePath = '/policy.wasm';
  const entrypoints: string[] = [];
  if (manifestBytes) {
    const m = json(manifestBytes, '.manifest');
    const wasmList = m instanceof RObject ? m.get('wasm') : undefined;
    if (Array.isArray(wasmList)) {
      for (const w of wasmList) {
        if (!(w instanceof RObject)) continue;
        const ep = w.get('entrypoint');
        const mod = w.get('module');
        if (typeof ep === 'string') entrypoints.push(ep);
        if (typeof mod === 'string') modulePath = mod;
      }
    }
  }
  const wasm = file(files, modulePath);
  if (!wasm) throw new BundleFormatError(`bundle has no wasm module at ${modulePath}`);
  const dataBytes = file(files, 'data.json');
  return { wasm, entrypoints, data: dataBytes ? json(dataBytes, 'data.json') : new RObject() };
}
