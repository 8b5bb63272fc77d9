import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readBundle } from './bundle.js';
import { WasmPolicy } from './policy.js';
import { BundleFormatError, readTar } from './tar.js';
import { sharedPath } from '../../testing/shared.js';

const FIXTURE = process.env.OPA_WASM_FIXTURE ?? sharedPath('opa-wasm-fixture/bundle.tar.gz');

/** Builds a one-file ustar archive. */
function tarOf(name: string, body: string): Uint8Array {
  const header = Buffer.alloc(512);
  header.write(name, 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${Buffer.byteLength(body).toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  let sum = 0;
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const data = Buffer.alloc(Math.ceil(Buffer.byteLength(body) / 512) * 512);
  data.write(body);
  return new Uint8Array(Buffer.concat([header, data, Buffer.alloc(1024)]));
}

describe('tar reader', () => {
  it('reads a regular file from a ustar archive', () => {
    const files = readTar(tarOf('/.manifest', '{"a":1}'));
    expect(Buffer.from(files.get('/.manifest')!).toString()).toBe('{"a":1}');
  });

  it('rejects a truncated archive', () => {
    const t = tarOf('/x', 'x'.repeat(600)).subarray(0, 700);
    expect(() => readTar(t)).toThrow(BundleFormatError);
  });

  it('rejects bytes that are neither wasm nor a gzipped bundle', () => {
    expect(() => readBundle(new Uint8Array([1, 2, 3]))).toThrow(BundleFormatError);
  });

  it('reports a bundle without its wasm module', () => {
    expect(() => readBundle(new Uint8Array(gzipSync(tarOf('/data.json', '{}'))))).toThrow(/no wasm module/);
  });
});

describe.skipIf(!existsSync(FIXTURE))('wasm policy (OPA fixture bundle)', () => {
  const bytes = () => new Uint8Array(readFileSync(FIXTURE));

  it('lists the manifest entrypoint', async () => {
    const p = await WasmPolicy.load(bytes());
    expect([...p.entrypoints.keys()]).toEqual(['test/allow']);
  });

  it.each([
    [{ x: 'x' }, true],
    [{ x: 'y' }, false],
    [{ x: 1 }, false],
  ])('evaluates test/allow for %j as %s', async (input, want) => {
    const p = await WasmPolicy.load(bytes());
    expect(p.evaluate('test/allow', input)).toBe(want);
  });

  it.each([
    ['allows when allow is true', { x: 'x' }, false],
    ['blocks when allow is defined and false', { x: 'y' }, true],
  ])('decides: %s', async (_n, input, blocked) => {
    const p = await WasmPolicy.load(bytes());
    const d = p.decide('test', input);
    expect(d.blocked).toBe(blocked);
    expect(d.error).toBeUndefined();
  });
});
