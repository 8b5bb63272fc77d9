import { describe, expect, it } from 'vitest';
import { ApiError } from '../status-errors.js';
import { decodeProtobufObject } from './protobuf.js';

// The body `kubectl create configmap foo --from-literal=a=b` sent (captured with -v=8).
const CONFIGMAP = '6b3873000a0f0a0276311209436f6e6669674d6170121d0a130a03666f6f12001a0022002a0032003800420012060a01611201621a002200';

describe('protobuf request bodies', () => {
  it('decodes what kubectl sends for a ConfigMap, dropping empty Go zero values', () => {
    expect(decodeProtobufObject(Buffer.from(CONFIGMAP, 'hex'))).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'foo' }, data: { a: 'b' } });
  });

  it('refuses (415) a message with a field it cannot decode rather than dropping it', () => {
    // Same ConfigMap with an extra field 9 (a string "x") in the object message.
    const raw = Buffer.from('0a050a03666f6f4a0178', 'hex');
    const env = Buffer.concat([Buffer.from('6b387300', 'hex'), Buffer.from('0a0f0a0276311209436f6e6669674d6170', 'hex'), Buffer.from([0x12, raw.length]), raw]);
    try {
      decodeProtobufObject(env);
      expect.unreachable();
    } catch (e) {
      expect((e as ApiError).status).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    }
  });

  it('refuses kinds it has no message table for', () => {
    const env = Buffer.concat([Buffer.from('6b387300', 'hex'), Buffer.from('0a150a07617070732f7631120a4465706c6f796d656e74', 'hex')]);
    expect(() => decodeProtobufObject(env)).toThrow(/unknown format/);
  });
});
